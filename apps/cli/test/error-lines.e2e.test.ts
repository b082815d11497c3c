// Error lines stay one line of at most 240 characters by shortening what they quote (paths),
// never what they say: a checkpoint in a Hugging Face cache, whose path alone takes 160 and more.
// And what a file holds is never echoed: a file that is no tensor file is named, with what it
// looks like, not shown.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tensorFrom } from '@tensorops/core';
import { encodeSafetensors } from '@tensorops/io';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, tempDir, tensorops } from './helpers.js';

const LIMIT = 240;
const PREFIX = 'tensorops: error: ';

/** A model.safetensors of 17 small tensors, under a cache layout; its folders and path. */
function cachedCheckpoint(): { snapshot: string; file: string } {
  const hub = join(tempDir(), 'home-of-a-user', '.cache', 'huggingface', 'hub');
  const snapshot = join(
    hub,
    'models--meta-llama--Llama-3.2-1B-Instruct',
    'snapshots',
    '0e9e39f249a16976918f6564b8830bc894c89659',
  );
  mkdirSync(snapshot, { recursive: true });
  const names = ['model.embed_tokens.weight'];
  for (let layer = 0; layer < 4; layer++) {
    for (const proj of ['q_proj', 'k_proj']) {
      for (const part of ['weight', 'bias']) {
        names.push(`model.layers.${layer}.self_attn.${proj}.${part}`);
      }
    }
  }
  const tensors = names.map((name) => ({ name, tensor: tensorFrom('float32', [2], [1, 2]) }));
  const file = join(snapshot, 'model.safetensors');
  writeFileSync(file, encodeSafetensors(tensors));
  expect(file.length).toBeGreaterThanOrEqual(160);
  return { snapshot, file };
}

/** The message of a failed run's one error line, checked to be one line of at most LIMIT. */
function errorMessage(r: ReturnType<typeof tensorops>): string {
  expect(r.status).toBe(1);
  expect(r.stdout.length).toBe(0);
  const lines = r.stderr.split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]?.startsWith(PREFIX)).toBe(true);
  const message = (lines[0] as string).slice(PREFIX.length);
  expect([...message].length).toBeLessThanOrEqual(LIMIT);
  return message;
}

describe('error lines on long paths', () => {
  it('a mistyped tensor name keeps the reason and the suggestion; the path is cut in its middle', () => {
    const { file } = cachedCheckpoint();
    for (const command of [
      ['show', `${file}:model.embed_token.weight`],
      ['gather', `${file}:model.embed_token.weight`, join(EXAMPLES, 'ids.npy')],
      ['inspect', `${file}:model.embed_token.weight`],
    ]) {
      const message = errorMessage(tensorops(command));
      expect(message).toContain(
        ": no tensor 'model.embed_token.weight'; did you mean 'model.embed_tokens.weight'?",
      );
      const path = message.slice(0, message.indexOf(': '));
      expect(path).toContain('…');
      expect(path.startsWith(file.slice(0, 8))).toBe(true);
      expect(path.endsWith('/model.safetensors')).toBe(true);
    }
  });

  it('a path inside the working folder is shown relative to it', () => {
    const { snapshot, file } = cachedCheckpoint();
    const inSnapshot = errorMessage(tensorops(['show', `${file}:nope`], { cwd: snapshot }));
    expect(inSnapshot).toBe(
      "model.safetensors: no tensor 'nope' (it holds 'model.embed_tokens.weight', 'model.layers.0.self_attn.k_proj.bias' and 15 more: tensorops inspect model.safetensors)",
    );
  });

  it('a file that holds several tensors, read without :NAME, says how to pick one', () => {
    const { file } = cachedCheckpoint();
    const message = errorMessage(tensorops(['show', file]));
    expect(message).toMatch(
      /^\/.*…\/model\.safetensors: holds 17 tensors \('model\.embed_tokens\.weight', 'model\.layers\.0\.self_attn\.k_proj\.bias' and 15 more: tensorops inspect \/.*…\/model\.safetensors\); pick one as \/.*:NAME$/,
    );
  });
});

describe('a file that is no tensor file', () => {
  // A secret of the user's, reached through links named as tensor files.
  const SECRET = 'root:x:0:0:root:/root:/bin/bash\n';

  /** Its bytes in every form an error could show them: text, hex, a little-endian length. */
  function expectNoSecret(line: string): void {
    expect(line).not.toContain('root');
    expect(line).not.toMatch(/72 ?6f ?6f ?74/i);
    const length = new DataView(new TextEncoder().encode(SECRET).buffer).getBigUint64(0, true);
    expect(line).not.toContain(String(length));
  }

  it('a shard linked out of its folder to a text file is named, never echoed', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'outside'));
    mkdirSync(join(dir, 'model'));
    writeFileSync(join(dir, 'outside', 'secret.txt'), SECRET);
    const shard = 'model-00001-of-00001.safetensors';
    symlinkSync('../outside/secret.txt', join(dir, 'model', shard));
    writeFileSync(
      join(dir, 'model', 'model.safetensors.index.json'),
      JSON.stringify({ metadata: {}, weight_map: { w: shard } }),
    );
    const index = 'model/model.safetensors.index.json';
    for (const command of [
      ['inspect', index],
      ['show', `${index}:w`],
      ['gather', `${index}:w`, join(EXAMPLES, 'ids.npy')],
    ]) {
      const message = errorMessage(tensorops(command, { cwd: dir }));
      expect(message.startsWith(`${index}: shard '${shard}': `)).toBe(true);
      expect(message).toContain('not a .safetensors file');
      expectNoSecret(message);
    }
  });

  it('an input of any name says what the file looks like, not what it holds', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'secret.txt'), SECRET);
    const cases: [string, string, string][] = [
      [
        'x.npy',
        'x.npy',
        "x.npy: not a .npy file: it does not start with '\\x93NUMPY' (it looks like text)",
      ],
      ['x.bin', 'x.bin', 'x.bin: not a .npy, .npz, .safetensors or .gguf file: it looks like text'],
      [
        'x.safetensors',
        'x.safetensors:w',
        'x.safetensors: .safetensors header length exceeds the 100000000-byte limit: not a .safetensors file (it looks like text)',
      ],
    ];
    for (const [link, ref, expected] of cases) {
      symlinkSync('secret.txt', join(dir, link));
      const message = errorMessage(tensorops(['show', ref], { cwd: dir }));
      expect(message).toBe(expected);
      expectNoSecret(message);
    }
    const piped = errorMessage(
      tensorops(['show', '-'], { cwd: dir, input: new TextEncoder().encode(SECRET) }),
    );
    expect(piped).toBe("not a .npy file: it does not start with '\\x93NUMPY' (it looks like text)");
  });
});

import { describe, expect, it } from 'vitest';
import { elidePath, shortenMessage } from './shorten-message.js';

// A Hugging Face cache layout: 150 characters before the file's name.
const SNAPSHOT =
  '/home/someone/.cache/huggingface/hub/models--meta-llama--Llama-3.2-1B-Instruct/snapshots/0e9e39f249a16976918f6564b8830bc894c89659';
const FILE = `${SNAPSHOT}/model.safetensors`;
const REASON = "no tensor 'model.embed_token.weight'";
const NAMES = "'model.embed_tokens.weight', 'model.layers.0.self_attn.q_proj.weight' and 15 more";
const MISSING = `${FILE}: ${REASON} (it holds ${NAMES}: tensorops inspect ${FILE})`;

const chars = (text: string) => [...text].length;

describe('shortenMessage', () => {
  it('leaves a message that fits as it is', () => {
    const short = `${FILE}: ${REASON}`;
    expect(chars(short)).toBeLessThan(240);
    expect(shortenMessage(short, 240, '/elsewhere')).toBe(short);
  });

  it('shortens the paths of a long message and keeps its reason and its list whole', () => {
    expect(chars(MISSING)).toBeGreaterThan(240);
    const line = shortenMessage(MISSING, 240, '/elsewhere');
    expect(chars(line)).toBeLessThanOrEqual(240);
    expect(line).toContain(`: ${REASON} (it holds ${NAMES}: tensorops inspect `);
    // Both copies of the path are cut the same way, keeping its start and its file name.
    const [path] = line.split(': ');
    expect(path).toMatch(/^\/home.*….*\/model\.safetensors$/);
    expect(line.endsWith(`inspect ${path})`)).toBe(true);
  });

  it('shows a path relative to the working folder where that is shorter', () => {
    expect(shortenMessage(MISSING, 240, SNAPSHOT)).toBe(
      `model.safetensors: ${REASON} (it holds ${NAMES}: tensorops inspect model.safetensors)`,
    );
    // Relative, and still too long: then cut.
    const near = shortenMessage(MISSING, 240, '/home/someone/.cache/huggingface/hub');
    expect(near).toMatch(/^models--meta-llama--.*…\/model\.safetensors: no tensor /);
    // A path outside the working folder is cut, never shown as `../../..`.
    const deep = shortenMessage(MISSING, 240, `${SNAPSHOT}-other/a/b/c/d/e/f/g/h/i/j/k/l/m/n`);
    expect(deep).not.toContain('..');
    expect(deep).toContain(REASON);
  });

  it('cuts long quoted names only when the paths are as short as they go', () => {
    const name = `'${'layer.'.repeat(60)}bias'`;
    const line = shortenMessage(`${FILE}: no tensor ${name} (it holds none)`, 120, '/elsewhere');
    expect(chars(line)).toBe(120);
    expect(line).toMatch(
      /^\/hom.*\/model\.safetensors: no tensor 'layer\..*….*bias' \(it holds none\)$/,
    );
  });

  it('cuts a message of short words as a whole, keeping both ends', () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    const line = shortenMessage(words, 60);
    expect(chars(line)).toBe(60);
    expect(line.startsWith('word0 word1')).toBe(true);
    expect(line.endsWith('word98 word99')).toBe(true);
  });

  it('takes time linear in the message: a path of a million characters', () => {
    const path = `/${'ab/'.repeat(333_333)}x.npy`;
    const line = shortenMessage(`${path}: not a .npy file`, 240, '/elsewhere');
    expect(chars(line)).toBe(240);
    expect(line).toMatch(/^\/ab\/.*…(\/?ab)*\/x\.npy: not a \.npy file$/);
  }, 20_000);
});

describe('elidePath', () => {
  it('keeps the file name and the folders nearest it whole, and the exact width', () => {
    expect(elidePath(FILE, 48)).toBe('/home/someone/.cache/huggingf…/model.safetensors');
    expect(chars(elidePath(FILE, 48))).toBe(48);
    expect(elidePath('/a/b/c.npy', 10)).toBe('/a/b/c.npy');
  });

  it('cuts a file name too long to keep in its middle', () => {
    const long = `/tmp/${'n'.repeat(100)}.npy`;
    const cut = elidePath(long, 32);
    expect(chars(cut)).toBe(32);
    expect(cut).toMatch(/^\/tmp\/n+…n+\.npy$/);
  });
});

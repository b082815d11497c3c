import { join } from 'node:path';
import { type Tensor, tensorFrom } from '@tensorops/core';
import { writeTensorsFile } from '@tensorops/io/node';
import { describe, expect, it } from 'vitest';
import { tempDir, tensorops } from './helpers.js';

// inspect --summary and --format json|csv|tsv, on checkpoints laid out as a transformer's.

const LAYERS = 32;

/** Four layers' worth of names per layer, an embedding and a head, in several dtypes. */
async function model(dir: string): Promise<string> {
  const file = join(dir, 'model.safetensors');
  const entries: { name: string; data: Tensor }[] = [
    { name: 'embed.weight', data: tensorFrom('float32', [10, 4], new Array(40).fill(0.5)) },
  ];
  for (let l = 0; l < LAYERS; l++) {
    entries.push({
      name: `model.layers.${l}.mlp.down_proj.weight`,
      data: tensorFrom('bfloat16', [2, 3], [1, 2, 3, 4, 5, 6]),
    });
    entries.push({
      name: `model.layers.${l}.input_layernorm.weight`,
      data: tensorFrom('bfloat16', [3], [1, 1, 1]),
    });
  }
  entries.push({ name: 'lm_head.weight', data: tensorFrom('float16', [4], [1, 2, 3, 4]) });
  await writeTensorsFile(file, entries);
  return file;
}

function ok(args: string[], cwd: string): string {
  const r = tensorops(args, { cwd });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.toString();
}

describe('inspect --summary', () => {
  it('groups names whose numbers differ, with counts, bytes and the totals', async () => {
    const dir = tempDir();
    await model(dir);
    const size = ok(['inspect', 'model.safetensors', '--json'], dir);
    const kib = (JSON.parse(size).size / 1024).toFixed(2);
    expect(ok(['inspect', 'model.safetensors', '--summary'], dir)).toBe(
      [
        `model.safetensors: safetensors, 66 tensors, ${kib} KiB`,
        '  group                                  count  dtype     shape    bytes',
        '  embed.weight                              ×1  float32   [10, 4]  160 B',
        '  model.layers.#.input_layernorm.weight    ×32  bfloat16  [3]      192 B',
        '  model.layers.#.mlp.down_proj.weight      ×32  bfloat16  [2, 3]   384 B',
        '  lm_head.weight                            ×1  float16   [4]        8 B',
        '  total: 332 parameters, 744 B (float32 160 B, bfloat16 576 B, float16 8 B)',
        '',
      ].join('\n'),
    );
  });

  it('--json adds the groups, the parameter count and the bytes by dtype', async () => {
    const dir = tempDir();
    await model(dir);
    const doc = JSON.parse(ok(['inspect', 'model.safetensors', '--summary', '--json'], dir));
    expect(doc.tensors).toHaveLength(2 * LAYERS + 2);
    expect(doc.summary.groups[2]).toEqual({
      name: 'model.layers.#.mlp.down_proj.weight',
      count: LAYERS,
      dtype: 'bfloat16',
      shape: [2, 3],
      nbytes: LAYERS * 12,
    });
    expect(doc.summary.parameters).toBe(40 + 4 + LAYERS * 9);
    expect(doc.summary.bytes_by_dtype).toEqual({ float32: 160, float16: 8, bfloat16: LAYERS * 18 });
  });
});

describe('inspect --format', () => {
  it('csv and tsv: a header, then a row per tensor of every file', async () => {
    const dir = tempDir();
    await writeTensorsFile(join(dir, 'odd.npz'), [
      { name: 'a,"b"', data: tensorFrom('int8', [2], [1, 2]) },
    ]);
    await writeTensorsFile(join(dir, 'two.safetensors'), [
      { name: 'w', data: tensorFrom('float32', [1, 2], [1, 2]) },
    ]);
    const files = ['odd.npz', 'two.safetensors'];
    const json = JSON.parse(ok(['inspect', ...files, '--format', 'json'], dir));
    expect(json).toEqual(JSON.parse(ok(['inspect', ...files, '--json'], dir)));
    const [npz, st] = json;
    const offset = [npz.tensors[0].offset, st.tensors[0].offset];
    expect(ok(['inspect', ...files, '--format', 'csv'], dir)).toBe(
      [
        'file,name,dtype,shape,nbytes,offset,shard,format_dtype,fortran_order,byte_order,compression,compressed_nbytes',
        `odd.npz,"a,""b""",int8,[2],2,${offset[0]},,|i1,false,none,stored,130`,
        `two.safetensors,w,float32,"[1,2]",8,${offset[1]},,F32,false,little,,`,
        '',
      ].join('\n'),
    );
    expect(ok(['inspect', ...files, '--format', 'tsv'], dir)).toBe(
      [
        'file\tname\tdtype\tshape\tnbytes\toffset\tshard\tformat_dtype\tfortran_order\tbyte_order\tcompression\tcompressed_nbytes',
        `odd.npz\ta,"b"\tint8\t[2]\t2\t${offset[0]}\t\t|i1\tfalse\tnone\tstored\t130`,
        `two.safetensors\tw\tfloat32\t[1,2]\t8\t${offset[1]}\t\tF32\tfalse\tlittle\t\t`,
        '',
      ].join('\n'),
    );
  });

  it('csv with --summary: a row per group', async () => {
    const dir = tempDir();
    await model(dir);
    expect(ok(['inspect', 'model.safetensors', '--summary', '--format', 'csv'], dir)).toBe(
      [
        'file,name,count,dtype,shape,nbytes',
        'model.safetensors,embed.weight,1,float32,"[10,4]",160',
        'model.safetensors,model.layers.#.input_layernorm.weight,32,bfloat16,[3],192',
        'model.safetensors,model.layers.#.mlp.down_proj.weight,32,bfloat16,"[2,3]",384',
        'model.safetensors,lm_head.weight,1,float16,[4],8',
        '',
      ].join('\n'),
    );
  });

  it('any other format, --json with another, or a flag inspect does not use: exit 2', async () => {
    const dir = tempDir();
    await model(dir);
    for (const [args, message] of [
      [['--format', 'npy'], "--format takes one of json, csv, tsv, got 'npy'"],
      [['--format', 'csv', '--json'], '--json contradicts --format csv; give one of them'],
      [['--head', '1'], 'inspect does not take --head (see tensorops inspect --help)'],
    ] as const) {
      const r = tensorops(['inspect', 'model.safetensors', ...args], { cwd: dir });
      expect(r.stdout.length).toBe(0);
      expect(r.stderr).toBe(`tensorops: error: ${message}\n`);
      expect(r.status).toBe(2);
    }
  });
});

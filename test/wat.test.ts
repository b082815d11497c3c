import { describe, expect, it } from 'vitest';
import wabt from 'wabt';
// @ts-expect-error: a plain .mjs build script without type declarations
import { committedWat, generatedWat, WASM_MODULES } from '../scripts/wasm.mjs';

interface WasmModuleEntry {
  readonly name: string;
}
const modules = WASM_MODULES as readonly WasmModuleEntry[];

describe('the committed WebAssembly text', () => {
  for (const m of modules) {
    it(`${m.name}.wat is what its generator writes (run \`pnpm wat\` after changing ${m.name}.wat.mjs)`, async () => {
      const committed: string = await committedWat(m);
      expect(committed.length).toBeGreaterThan(1000);
      expect(committed === (await generatedWat(m))).toBe(true);
    });
  }

  it("core's kernels and io's block mover and dequantizers assemble without SIMD and GatherTree's walk needs it, so an engine without SIMD refuses only the walk", async () => {
    const tools = await wabt();
    const assemblesWithoutSimd = async (name: string): Promise<boolean> => {
      const text: string = await committedWat(modules.find((m) => m.name === name));
      try {
        const parsed = tools.parseWat(`${name}.wat`, text, { simd: false });
        parsed.validate();
        parsed.destroy();
        return true;
      } catch {
        return false;
      }
    };
    expect(await assemblesWithoutSimd('kernels')).toBe(true);
    expect(await assemblesWithoutSimd('blocks')).toBe(true);
    expect(await assemblesWithoutSimd('quants')).toBe(true);
    expect(await assemblesWithoutSimd('tree')).toBe(false);
  });
});

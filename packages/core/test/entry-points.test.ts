import { describe, expect, it } from 'vitest';
import * as main from '../src/index.js';
import * as internal from '../src/internal.js';

// The main entry is what a user needs; what only tensorops' own packages share is in the unstable
// internal entry (docs/design.md §1.1). A name in both would make the internal one public again.
const INTERNAL = [
  'ZERO_FILL',
  'alignedView',
  'copyElement',
  'decodeIndices',
  'describeValue',
  'integerRange',
  'outputTensor',
  'setWasmKernelsEnabled',
  'valueView',
  'wasmModule',
  'wasmWithOwnMemory',
  'wordView',
  'wordWidth',
];

describe('entry points', () => {
  it('@tensorops/core/internal holds exactly the shared building blocks', () => {
    expect(Object.keys(internal).sort()).toEqual(INTERNAL);
  });

  it('the main entry exports none of them', () => {
    for (const name of INTERNAL) expect(Object.keys(main)).not.toContain(name);
  });

  it('the main entry still holds the ops, their plans and the tensor helpers', () => {
    for (const name of ['gather', 'planGather', 'runGatherPlan', 'gatherElements', 'gatherND']) {
      expect(typeof (main as Record<string, unknown>)[name]).toBe('function');
    }
    for (const name of ['createTensor', 'tensorFrom', 'tensorValues', 'TensorOpsError']) {
      expect(typeof (main as Record<string, unknown>)[name]).toBe('function');
    }
  });
});

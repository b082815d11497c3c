import type { OobMode } from '@tensorops/core';
import type { Options } from 'yargs';

export const OOB_MODES: readonly OobMode[] = ['error', 'zero'];

/** `--oob` of gather, gather-elements and gather-nd. */
export const OOB_FLAG = {
  oob: {
    type: 'string',
    choices: OOB_MODES,
    describe: 'out-of-range indices: fail, or fill zeros',
    default: 'error',
  },
} as const satisfies Record<string, Options>;

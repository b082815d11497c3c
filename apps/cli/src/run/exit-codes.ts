import { isTensorOpsError } from '@tensorops/core';
import { cliWording } from './error-wording.js';
import { shortenMessage } from './shorten-message.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Only the CLI maps error codes to exit codes: usage errors 2, everything else 1. */
export function exitCodeFor(error: unknown): number {
  return isTensorOpsError(error) && error.code === 'E_USAGE' ? EXIT_USAGE : EXIT_FAILURE;
}

/**
 * Longest error message, so one error stays one readable line: lists are cut where they are
 * made (tensor-names.ts); what is left, a long path or quoted value, is shortened by
 * shortenMessage, which keeps the reason.
 */
export const MAX_ERROR_CHARS = 240;

/** The one stderr line for an error, in the CLI's words; a stack trace only with TENSOROPS_DEBUG=1. */
export function errorLine(error: unknown, debug: boolean): string {
  const message = cliWording(error instanceof Error ? error.message : String(error));
  const oneLine = shortenMessage(
    message.replace(/\s*\n\s*/g, ' ').trim(),
    MAX_ERROR_CHARS,
    workingFolder(),
  );
  const prefix = isTensorOpsError(error) ? '' : 'internal error: ';
  const stack = debug && error instanceof Error && error.stack ? `\n${error.stack}` : '';
  return `tensorops: error: ${prefix}${oneLine}${stack}\n`;
}

/** The folder paths are shown relative to; undefined when it has been removed. */
function workingFolder(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

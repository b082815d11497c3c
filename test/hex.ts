/** Bytes as hex, so a failing comparison shows where the bits differ. */
export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

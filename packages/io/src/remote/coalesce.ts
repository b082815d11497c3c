// Byte ranges wanted -> the requests that fetch them. Pure.
// Ranges are sorted and merged while a request stays worth it: a gap between two ranges is
// fetched along (one request instead of two) only while the request's span stays within
// MAX_OVERREAD of the bytes actually wanted in it, so the bytes transferred never exceed 1.1x
// what was asked for; a request never spans more than `maxSpan` bytes.

/** One wanted range: `target.length` bytes at `position`. */
export interface RangeRead {
  readonly position: number;
  readonly target: Uint8Array;
}

/** One request: bytes [start, end) covering `reads`. */
export interface RangeRequest {
  readonly start: number;
  readonly end: number;
  readonly reads: readonly RangeRead[];
}

/** A request may carry at most 10% more bytes than the reads it serves. */
export const MAX_OVERREAD = 1.1;

export function coalesceReads(reads: readonly RangeRead[], maxSpan: number): RangeRequest[] {
  const sorted = reads.filter((r) => r.target.length > 0).sort((a, b) => a.position - b.position);
  const requests: RangeRequest[] = [];
  let start = 0;
  let end = 0;
  let wanted = 0;
  let group: RangeRead[] = [];
  for (const r of sorted) {
    const rEnd = r.position + r.target.length;
    if (group.length > 0) {
      const newEnd = Math.max(end, rEnd);
      // Overlapping reads add only their new bytes to what is wanted.
      const added = newEnd - Math.max(end, r.position);
      const span = newEnd - start;
      if (span <= maxSpan && span <= MAX_OVERREAD * (wanted + added)) {
        group.push(r);
        wanted += added;
        end = newEnd;
        continue;
      }
      requests.push({ start, end, reads: group });
    }
    start = r.position;
    end = rEnd;
    wanted = r.target.length;
    group = [r];
  }
  if (group.length > 0) requests.push({ start, end, reads: group });
  return requests;
}

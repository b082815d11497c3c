// format/: tensors and values as text and bytes (shared by output/ and ui/).
// output-format.ts   the output format from --format, --json or the -o extension
// delimited-text.ts  csv and tsv
// tensor-json.ts     a tensor as one JSON document, streamed
// elements.ts        the elements of a tensor of any dtype, read as values
// element-text.ts    elements streamed as text, and the text of a number by dtype
// float-text.ts      floats as numpy prints them (repr, %g, a column's common format)
// string-cell.ts     string elements quoted for a cell
// refused-element.ts an element that text cannot hold, refused with its position
// preview.ts         the first and last rows of a large tensor, for the view
// stats.ts           the view's statistics and histogram sparkline
// bytes.ts           human-readable byte counts
export {};

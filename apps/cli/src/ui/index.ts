// ui/: the terminal views.
// show-tensor.ts   one tensor shown on a terminal (loads the views on use)
// render.ts        the one door to the Ink views, loaded lazily
// tensor-view.tsx  a tensor's view: header, stats, preview
// tensor-table.tsx inspect's table of tensors
// styled-lines.tsx lines of styled text for Ink
// layout.ts        text widths, truncation and printable names
// progress.ts      the progress bar drawn on stderr
export {};

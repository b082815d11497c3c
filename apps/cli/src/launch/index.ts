// launch/: starting the process and owning it.
// launch.ts       the bin (dist/tensorops.cjs): starts the CLI bundle with its compiled code cached
// code-cache.ts   V8's compiled code of the bundle, kept between runs in the user's cache folder
// bin.ts          the bundle's entry: owns the process (streams, signals, exit code) and runs main
// huge-pages.ts   whether a parsed run is worth huge pages, and starting the CLI again with them
// end-signals.ts  the signals a run ends by, and which a relaunch passes on
// stdout-state.ts whether standard output was closed when the process started
export {};

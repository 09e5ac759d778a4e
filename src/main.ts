#!/usr/bin/env node
// The command-line entry point of the source and of tsc's compiled tree (`node src/main.ts`, `node dist/main.js`):
// runs the command line (cli/command-line.ts) on this process's arguments and environment. `npm start` and the
// `plainrest` command run the same command line from the one-file build (one-file.ts).

import { runCommandLine } from './cli/command-line.ts';

runCommandLine();

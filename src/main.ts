#!/usr/bin/env node
// The command-line entry point (`npm start`, the `plainrest` bin, `node src/main.ts`): runs the command line
// (cli/command-line.ts) on this process's arguments and environment.

import { runCommandLine } from './cli/command-line.ts';

runCommandLine();

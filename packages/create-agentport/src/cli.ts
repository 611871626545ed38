#!/usr/bin/env node
import { runCommand } from './command.ts';

runCommand(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A failure to write (no permission, a full disk) says all there is in its message.
    process.stderr.write(`create-agentport: ${(error as Error).message ?? String(error)}\n`);
    process.exitCode = 1;
  },
);

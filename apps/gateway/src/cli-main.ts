import { parseArgs } from 'node:util';
import { AgentPortError } from '@agentport/core';
import packageJson from '../package.json' with { type: 'json' };
import { ConfigError, DEFAULT_CONFIG_FILES, findConfigFile, loadConfig } from './config.ts';
import { isAgentUrl } from './remote-call.ts';

const HELP = `agentport: put TypeScript agents on the network

Usage:
  agentport serve [--port N] [--host H] [--config FILE]   start the gateway (default command)
  agentport agents [--config FILE]                       list the agents the gateway would serve
  agentport call <agent> <input> [--stream] [--config FILE]
                                                         run one agent locally and print its output
  agentport call <url> <input> [--stream]                run a remote agent: an A2A card URL
                                                         (.../agent.json, .../agent-card.json),
                                                         an A2A SDK agent URL (.../a2a/echo) or
                                                         a REST/SSE agent URL (.../agents/echo)
  agentport card <url>                                   fetch and print a remote agent card
  agentport --help                                       show this help
  agentport --version                                    print the gateway's version

Options:
  --port N        port to listen on (default 8080, or PORT)
  --host H        address to bind (default 127.0.0.1, or HOST; 0.0.0.0 for all interfaces)
  --config FILE   config module (default: ./agentport.config.ts, .mts, .js or .mjs, the first found)
  --stream        with call: print every agent event as a JSON line

Environment:
  PORT, HOST, LOG_LEVEL   as --port, --host and the config's logLevel
  PUBLIC_URL              as the config's publicUrl: the base URL the agent cards advertise
  AGENTPORT_API_KEY       with call <url>: the remote agent's API key, sent as a bearer token
`;

/** How long a stopped gateway's process may wait for the work still going out (see `serve`). */
const EXIT_GRACE_MS = 2_000;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  config: { type: 'string' },
  stream: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
} as const;

/** Whether `error` is a misuse of the command line (an unknown or ill-formed option). */
function isUsageError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/**
 * The command line without the `--` that `pnpm start -- --config FILE` (npm's habit) puts before
 * the options: first, or right after `serve` or `agents` (which take no other arguments). A `--`
 * anywhere else still ends the options (`call echo -- --not-an-option`).
 */
function withoutScriptSeparator(argv: string[]): string[] {
  if (argv[0] === '--') return argv.slice(1);
  if (argv[1] === '--' && (argv[0] === 'serve' || argv[0] === 'agents')) {
    return [argv[0], ...argv.slice(2)];
  }
  return argv;
}

function parseCommandLine(argv: string[]) {
  return parseArgs({
    args: withoutScriptSeparator(argv),
    allowPositionals: true,
    options: OPTIONS,
  });
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    if (!isUsageError(error)) throw error;
    // A usage error, as an unknown command is: exit 2 with the help.
    process.stderr.write(`agentport: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command = 'serve', ...rest] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${packageJson.version}\n`);
    return 0;
  }
  const commands = await import('./commands.ts');
  if ((command === 'serve' || command === 'agents') && rest.length > 0) {
    process.stderr.write(`agentport ${command}: unexpected argument '${rest[0]}'\n\n${HELP}`);
    return 2;
  }
  switch (command) {
    case 'serve': {
      const config = await loadConfig(values.config);
      const file = values.config ?? findConfigFile(process.cwd());
      const code = await commands.serve(config, {
        port: values.port,
        host: values.host,
        // A mistyped file name or a mount in the wrong folder must not pass unseen.
        configFile: file ?? `none (no ${DEFAULT_CONFIG_FILES.join(', ')} in ${process.cwd()})`,
      });
      // Shut down. What the shutdown set off may still be on its way out: the cancel a remote
      // agent sends for the task of a run cut at the shutdown timeout (not awaited by the run).
      // The process ends once nothing is left, but what still runs after EXIT_GRACE_MS (an agent
      // that ignores its abort signal, and its timers) must not keep it alive.
      await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
      setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
      return code;
    }
    case 'agents':
      return commands.listAgents(await loadConfig(values.config));
    case 'call': {
      const [agent, ...input] = rest;
      if (agent === undefined || input.length === 0) {
        process.stderr.write(
          'agentport: usage: agentport call <agent or url> <input> [--stream]\n',
        );
        return 2;
      }
      const text = input.join(' ');
      if (isAgentUrl(agent)) return commands.callUrl(agent, text, values.stream);
      return commands.call(await loadConfig(values.config), agent, text, values.stream);
    }
    case 'card': {
      const [url] = rest;
      if (url === undefined) {
        process.stderr.write('agentport: usage: agentport card <url>\n');
        return 2;
      }
      return commands.printCard(url);
    }
    default:
      process.stderr.write(`agentport: unknown command '${command}'\n\n${HELP}`);
      return 2;
  }
}

/** Runs the command line: installs the process's handlers, then sets its exit code. */
export function runCli(argv: string[]): void {
  // Once nothing is left to do, the process exits at once with its code instead of tearing its
  // event loop down first: that teardown gives SIGINT back its default action, so a second Ctrl-C
  // landing then (pnpm's copy of the terminal's, a few ms later) killed a process that had already
  // finished, and it ended by the signal instead of with its code. Other `beforeExit` listeners
  // (an agent SDK flushing its traces, say) go first: the process exits at the first `beforeExit`
  // it alone listens to (with another listener that stays, it ends as Node ends it).
  process.on('beforeExit', () => {
    if (process.listenerCount('beforeExit') === 1) process.exit();
  });

  // Output piped into a reader that stops early (`agentport agents | head -1`) ends quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.stderr.write(`agentport: cannot write the output: ${error.message}\n`);
    process.exit(1);
  });

  main(argv).then(
    (code) => {
      if (code !== -1) process.exitCode = code;
    },
    (error: unknown) => {
      // An agent's error by its code, as an HTTP caller gets it (`invalid_input: ...`), not its class.
      const message =
        error instanceof ConfigError || error instanceof TypeError
          ? error.message
          : AgentPortError.isInstance(error)
            ? `${error.code}: ${error.message}`
            : String(error);
      // A local command: what an HTTP caller is never told (an agent failure's cause) helps here.
      // Other errors (a busy port, a bad URL) say all there is in their message.
      const cause = (error as { cause?: unknown } | undefined)?.cause;
      const failed = AgentPortError.isInstance(error) && error.code === 'agent_failure';
      const because =
        failed && cause instanceof Error ? `  caused by: ${cause.stack ?? String(cause)}\n` : '';
      process.stderr.write(`agentport: ${message}\n${because}`);
      process.exitCode = 1;
    },
  );
}

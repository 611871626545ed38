import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { createProject } from './create-project.ts';
import { CreateProjectError } from './create-project-error.ts';

/** The folder written when none is named. */
export const DEFAULT_DIRECTORY = 'my-agents';

/** The command's help text. */
export const HELP = `create-agentport: write a new AgentPort project (a config, one agent with a tool, a test, a Dockerfile)

Usage:
  npm create agentport@latest [directory] [-- --name NAME]
  create-agentport [directory] [--name NAME]

Arguments:
  directory     where to write it (default: ${DEFAULT_DIRECTORY}); a new or empty folder

Options:
  --name NAME   its package name (default: made from the folder's name)
  -h, --help    show this help
`;

/** Where the command writes what it says. */
export interface CommandOutput {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** `path` as a shell word: quoted when it holds anything but plain path characters. */
function shellWord(path: string): string {
  return /^[\w./@+-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

/** Whether `error` is a misuse of the command line (an unknown or ill-formed option). */
function isUsageError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

function parseCommandLine(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

/**
 * Runs `create-agentport [directory] [--name NAME]` (a relative directory is taken from the
 * current folder) and resolves with its exit code: 0 when the
 * project is written, 1 when it cannot be (a folder that is not empty, an invalid name), 2 for a
 * misused command line.
 */
export async function runCommand(argv: string[], output: CommandOutput): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    if (!isUsageError(error)) throw error;
    output.stderr.write(`create-agentport: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    output.stdout.write(HELP);
    return 0;
  }
  if (positionals.length > 1) {
    output.stderr.write(`create-agentport: unexpected argument '${positionals[1]}'\n\n${HELP}`);
    return 2;
  }
  const asked = positionals[0] ?? DEFAULT_DIRECTORY;
  let created: Awaited<ReturnType<typeof createProject>>;
  try {
    created = await createProject({ directory: asked, name: values.name });
  } catch (error) {
    if (!CreateProjectError.isInstance(error)) throw error;
    output.stderr.write(`create-agentport: ${error.message}\n`);
    return 1;
  }
  const shown = relative(process.cwd(), created.directory);
  const steps = [...(shown === '' ? [] : [`cd ${shellWord(shown)}`]), 'npm install', 'npm start'];
  output.stdout.write(
    [
      `Created ${created.name} in ${created.directory}:`,
      ...created.files.map((file) => `  ${file}`),
      '',
      'Next:',
      `  ${steps.join(' && ')}`,
      '',
      'npm start serves its agent on every surface at http://127.0.0.1:8080; npm test runs its test.',
      '',
    ].join('\n'),
  );
  return 0;
}

import { execFile } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HELP, runCommand } from './command.ts';
import { useTemporaryDirectories } from './testing/temporary-directory.ts';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('cli.ts', import.meta.url));
const temporaryDirectory = useTemporaryDirectories();

/** Runs the bin as npm would, from `cwd`: its exit code and what it wrote. */
async function runCli(
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** Runs the command in this process, capturing what it writes. */
async function runInProcess(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCommand(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe('create-agentport', () => {
  it('writes my-agents by default and prints the next steps', async () => {
    const cwd = await temporaryDirectory();
    const { code, stdout, stderr } = await runCli([], cwd);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(
      [
        `Created my-agents in ${join(cwd, 'my-agents')}:`,
        '  package.json',
        '  README.md',
        '  agentport.config.ts',
        '  src/agent.ts',
        '  test/agent.test.ts',
        '  tsconfig.json',
        '  Dockerfile',
        '  .dockerignore',
        '  .gitignore',
        '',
        'Next:',
        '  cd my-agents && npm install && npm start',
        '',
        'npm start serves its agent on every surface at http://127.0.0.1:8080; npm test runs its test.',
        '',
      ].join('\n'),
    );
    expect(await readdir(join(cwd, 'my-agents'))).toContain('agentport.config.ts');
  });

  it('writes the folder it is given, named by --name, and quotes it in the next steps', async () => {
    const cwd = await temporaryDirectory();
    const { code, stdout } = await runCli(['team agents', '--name', 'team'], cwd);
    expect(code).toBe(0);
    expect(stdout).toContain(`Created team in ${join(cwd, 'team agents')}:`);
    expect(stdout).toContain("  cd 'team agents' && npm install && npm start");
  });

  it('leaves out the cd when writing into the current folder', async () => {
    const cwd = join(await temporaryDirectory(), 'here');
    await mkdir(cwd);
    const { code, stdout } = await runCli(['.'], cwd);
    expect(code).toBe(0);
    expect(stdout).toContain('Created here in');
    expect(stdout).toContain('Next:\n  npm install && npm start\n');
  });

  it('refuses a non-empty folder with exit code 1 and says why', async () => {
    const cwd = await temporaryDirectory();
    await mkdir(join(cwd, 'my-agents'));
    await writeFile(join(cwd, 'my-agents', 'index.js'), '');
    expect(await runCli(['my-agents'], cwd)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "create-agentport: my-agents is not empty (it holds 'index.js'): choose a new folder or empty it first\n",
    });
    expect(await readdir(join(cwd, 'my-agents'))).toEqual(['index.js']);
  });

  it('refuses an invalid package name with exit code 1', async () => {
    const cwd = await temporaryDirectory();
    expect(await runCli(['agents', '--name', 'Agents'], cwd)).toEqual({
      code: 1,
      stdout: '',
      stderr: "create-agentport: 'Agents' is not a valid package name: it has upper-case letters\n",
    });
    expect(await readdir(cwd)).toEqual([]);
  });

  it('prints its help with exit code 0', async () => {
    const cwd = await temporaryDirectory();
    expect(await runCli(['--help'], cwd)).toEqual({ code: 0, stdout: HELP, stderr: '' });
    expect(await readdir(cwd)).toEqual([]);
    expect(HELP).toContain('npm create agentport@latest [directory]');
  });

  it('answers a misused command line with exit code 2 and the help', async () => {
    const unknown = await runInProcess(['--force']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.startsWith("create-agentport: Unknown option '--force'")).toBe(true);
    expect(unknown.stderr.endsWith(`\n\n${HELP}`)).toBe(true);
    const extra = await runInProcess(['one', 'two']);
    expect(extra).toEqual({
      code: 2,
      stdout: '',
      stderr: `create-agentport: unexpected argument 'two'\n\n${HELP}`,
    });
  });
});

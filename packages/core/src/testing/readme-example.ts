import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What running a README example printed, next to what the README says it prints. */
export interface ReadmeExampleResult {
  stdout: string;
  expected: string;
}

/**
 * Runs the first ```ts block of a package's README with this Node (from the package folder, so
 * its imports resolve) and returns its output with the ```text block that follows it.
 */
export async function runReadmeExample(packageDirectory: string): Promise<ReadmeExampleResult> {
  const readme = await readFile(join(packageDirectory, 'README.md'), 'utf8');
  const match = /```ts\n([\s\S]*?)```[\s\S]*?```text\n([\s\S]*?)```/.exec(readme);
  if (match?.[1] === undefined || match[2] === undefined) {
    throw new Error(
      `${packageDirectory}/README.md has no \`\`\`ts example followed by \`\`\`text output`,
    );
  }
  const file = join(packageDirectory, '.readme-example.ts');
  await writeFile(file, match[1]);
  try {
    const { stdout } = await run(process.execPath, [file], {
      cwd: packageDirectory,
      timeout: 30_000,
    });
    return { stdout: stdout.trim(), expected: match[2].trim() };
  } finally {
    await rm(file, { force: true });
  }
}

import { describe, expect, it } from 'vitest';
import { CreateProjectError } from './create-project-error.ts';
import { projectNameFor, projectNameProblem } from './project-name.ts';

describe('projectNameProblem', () => {
  it('accepts lower-case, URL-safe names and scoped names', () => {
    for (const name of ['my-agents', 'agents2', 'a.b_c~d', '@me/agents']) {
      expect(projectNameProblem(name)).toBeUndefined();
    }
  });

  it('says why a name npm would refuse is refused', () => {
    expect(projectNameProblem('')).toBe('it is empty');
    expect(projectNameProblem('My-Agents')).toBe('it has upper-case letters');
    expect(projectNameProblem('my agents')).toMatch(/only lower-case letters/);
    expect(projectNameProblem('.hidden')).toMatch(/not start with '.'/);
    expect(projectNameProblem('_private')).toMatch(/not start with/);
    expect(projectNameProblem('a/b')).toMatch(/only lower-case letters/);
    expect(projectNameProblem('x'.repeat(215))).toBe('it is longer than 214 characters');
    expect(projectNameProblem('http')).toMatch(/reserved/);
    expect(projectNameProblem('node_modules')).toMatch(/reserved/);
  });
});

describe('projectNameFor', () => {
  it("makes a package name of the folder's name", () => {
    expect(projectNameFor('my-agents')).toBe('my-agents');
    expect(projectNameFor('/tmp/work/My Agents')).toBe('my-agents');
    expect(projectNameFor('some/where/Été 2026!')).toBe('ete-2026');
    expect(projectNameFor('./.agents')).toBe('agents');
  });

  it('refuses a folder name that leaves no usable name', () => {
    const refuse = () => projectNameFor('/tmp/日本');
    expect(refuse).toThrow(CreateProjectError);
    expect(refuse).toThrow(
      "Cannot make a package name of the folder name '日本' (it is empty): give one with --name",
    );
    expect(refuse).toThrow(expect.objectContaining({ code: 'invalid_name' }));
    expect(() => projectNameFor('/tmp/HTTP')).toThrow(/'HTTP' \(it is reserved/);
  });
});

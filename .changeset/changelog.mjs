// CHANGELOG lines for `pnpm changeset version`: @changesets/cli's default (a changeset's summary
// as one list item, with its commit when there is one), except that the packages a release
// bumps beside this one are named on one line. The packages are released on one version line, so
// each release bumps them all; the default wrote one "Updated dependencies" line per changeset.

/** One changeset's entry: its first line as a list item, the lines after it indented under it. */
export function getReleaseLine(changeset) {
  const [firstLine, ...moreLines] = changeset.summary.split('\n').map((line) => line.trimEnd());
  const commit = changeset.commit ? `${changeset.commit.slice(0, 7)}: ` : '';
  return [`- ${commit}${firstLine}`, ...moreLines.map((line) => (line ? `  ${line}` : ''))].join(
    '\n',
  );
}

/** The internal dependencies this release moves to, on one line (none: no line). */
export function getDependencyReleaseLine(_changesets, dependencies) {
  if (dependencies.length === 0) return '';
  const names = dependencies.map((dependency) => `\`${dependency.name}@${dependency.newVersion}\``);
  return `- Updated dependencies: ${names.join(', ')}`;
}

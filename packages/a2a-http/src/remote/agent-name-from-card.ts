const MAX_NAME_LENGTH = 64;

/**
 * Turns a card's display name into a valid agent name: lower case, accents dropped, runs of other
 * characters as `-`, at most 64 characters; `remote-agent` when nothing is left.
 */
export function agentNameFromCard(cardName: string): string {
  const name = cardName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/-+$/, '');
  return name === '' ? 'remote-agent' : name;
}

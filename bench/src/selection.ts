import type { ServerKind } from './serve.ts';

/** The scenario groups `pnpm bench -- --only <group,...>` can name, in the order a run takes them. */
export const SCENARIO_GROUPS = [
  'invoke',
  'send',
  'sse',
  'stream',
  'remote',
  'idle',
  'adapters',
  'postgres',
  'cold-start',
] as const;
/** One of {@link SCENARIO_GROUPS}. */
export type ScenarioGroup = (typeof SCENARIO_GROUPS)[number];

/** The servers each group loads (cold start starts its own processes). */
const GROUP_SERVERS: Record<ScenarioGroup, readonly ServerKind[]> = {
  invoke: ['raw', 'hono', 'gateway'],
  send: ['sdk-express', 'gateway', 'gateway-message'],
  sse: ['raw', 'gateway'],
  stream: ['sdk-express', 'gateway'],
  remote: ['gateway'],
  idle: ['raw', 'gateway'],
  adapters: ['gateway-ai-sdk', 'ai-sdk-hono', 'mastra-hono'],
  postgres: ['sdk-express-postgres', 'gateway-postgres', 'gateway'],
  'cold-start': [],
};

/** What a run measures: its groups, whether that is all of them, and the servers they need. */
export interface Selection {
  groups: ReadonlySet<ScenarioGroup>;
  /** Whether every group runs (only then may the run write BENCHMARKS.md). */
  complete: boolean;
  servers: ServerKind[];
}

/**
 * Reads `--only <group,...>` (or `--only=<group,...>`) from the bench's arguments: without it every
 * group runs; an unknown group name throws, naming the known ones.
 */
export function parseSelection(argv: readonly string[]): Selection {
  const index = argv.findIndex((arg) => arg === '--only' || arg.startsWith('--only='));
  const flag = argv[index];
  let groups: ScenarioGroup[] = [...SCENARIO_GROUPS];
  if (flag !== undefined) {
    const list = flag === '--only' ? (argv[index + 1] ?? '') : flag.slice('--only='.length);
    const names = list.split(',').filter((name) => name !== '');
    if (names.length === 0) throw new Error(`--only takes groups: ${SCENARIO_GROUPS.join(', ')}`);
    for (const name of names) {
      if (!(SCENARIO_GROUPS as readonly string[]).includes(name)) {
        throw new Error(`unknown scenario group '${name}' (${SCENARIO_GROUPS.join(', ')})`);
      }
    }
    groups = SCENARIO_GROUPS.filter((group) => names.includes(group));
  }
  const servers = [...new Set(groups.flatMap((group) => GROUP_SERVERS[group]))];
  return { groups: new Set(groups), complete: groups.length === SCENARIO_GROUPS.length, servers };
}

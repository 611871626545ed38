import { type Agent, InvalidInputError } from '@agentport/core';

/**
 * Refuses a handoff target, at any depth, that bears a served agent's name but is another agent:
 * a compat run of that name would run the served one while the handoff runs the other, and a
 * run's `agent` could name either. (The built-in assistant hands off to the served `echo` itself.)
 */
export function assertOneAgentPerName(agents: readonly Agent[]): void {
  const served = new Map(agents.map((agent) => [agent.name, agent]));
  const seen = new Set<Agent>(agents);
  const queue = [...agents];
  for (let agent = queue.pop(); agent !== undefined; agent = queue.pop()) {
    for (const target of agent.handoffs) {
      const namesake = served.get(target.name);
      if (namesake !== undefined && namesake !== target) {
        throw new InvalidInputError(
          `'${agent.name}' hands off to an agent named '${target.name}' that is not the served '${target.name}': hand off to the served agent itself, or rename one of them`,
          { field: 'agents' },
        );
      }
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
}

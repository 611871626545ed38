/** Something that beats on each tick of its heartbeat group. */
export interface HeartbeatMember {
  beat(): void;
}

interface Group {
  timer: ReturnType<typeof setInterval>;
  members: Set<HeartbeatMember>;
}

// One timer per interval for all open streams, not one per stream: an idle stream then costs a
// set entry instead of a timer object.
const groups = new Map<number, Group>();

/** Beats `member` every `intervalMs` until it leaves; the group's timer never holds the process. */
export function joinHeartbeat(intervalMs: number, member: HeartbeatMember): void {
  let group = groups.get(intervalMs);
  if (group === undefined) {
    const members = new Set<HeartbeatMember>();
    const timer = setInterval(() => {
      for (const current of members) current.beat();
    }, intervalMs);
    timer.unref?.();
    group = { timer, members };
    groups.set(intervalMs, group);
  }
  group.members.add(member);
}

/** Stops beating `member`; the last member to leave stops the group's timer. */
export function leaveHeartbeat(intervalMs: number, member: HeartbeatMember): void {
  const group = groups.get(intervalMs);
  if (group === undefined) return;
  group.members.delete(member);
  if (group.members.size > 0) return;
  clearInterval(group.timer);
  groups.delete(intervalMs);
}

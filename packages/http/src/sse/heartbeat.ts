/** Something that beats on each tick of its heartbeat group. */
export interface HeartbeatMember {
  beat(): void;
}

interface Group {
  timer: ReturnType<typeof setInterval>;
  members: Set<HeartbeatMember>;
}

// One timer per interval for all open streams, not one per stream: an idle stream then costs a
// set entry instead of a timer object. A group's timer stops on its first beat with no member
// rather than when its last member leaves: streams that open and end one after another (a short
// stream ends within the turn it started in) then share one timer instead of each setting up and
// tearing down Node's timer list and libuv timer.
const groups = new Map<number, Group>();

/** Beats `member` every `intervalMs` until it leaves; the group's timer never holds the process. */
export function joinHeartbeat(intervalMs: number, member: HeartbeatMember): void {
  let group = groups.get(intervalMs);
  if (group === undefined) {
    const members = new Set<HeartbeatMember>();
    const timer = setInterval(() => {
      if (members.size === 0) stopGroup(intervalMs, timer);
      for (const current of members) current.beat();
    }, intervalMs);
    timer.unref?.();
    group = { timer, members };
    groups.set(intervalMs, group);
  }
  group.members.add(member);
}

/** Stops beating `member`; an empty group's timer stops at its next beat. */
export function leaveHeartbeat(intervalMs: number, member: HeartbeatMember): void {
  groups.get(intervalMs)?.members.delete(member);
}

/**
 * Stops the timers of the groups that have no member now rather than at their next beat (tests
 * switching between fake and real timers need no group to outlive them).
 */
export function stopIdleHeartbeats(): void {
  for (const [intervalMs, group] of groups) {
    if (group.members.size === 0) stopGroup(intervalMs, group.timer);
  }
}

function stopGroup(intervalMs: number, timer: ReturnType<typeof setInterval>): void {
  clearInterval(timer);
  groups.delete(intervalMs);
}

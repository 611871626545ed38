/**
 * Whether a v0.3 event is a status update saying the task waits for input: the last event of
 * its stream, so `final`, which in v0.3 says the stream of this turn ends there (the SDK's
 * converter sets it for terminal states only, v1.0 having no such flag).
 */
export function endsAtPause(value: { kind?: unknown; status?: { state?: unknown } }): boolean {
  return value.kind === 'status-update' && value.status?.state === 'input-required';
}

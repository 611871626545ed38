/** One event of a task's SSE stream, as the tests read it. */
interface StreamedEvent {
  event?: string | undefined;
  data: string;
}

/**
 * The task's output and status as a reader of `GET /tasks/{id}/events` ends up knowing them: a
 * `task` snapshot starts them anew, text deltas grow the output, status updates move the status.
 */
export function foldTaskEvents(events: readonly StreamedEvent[]): {
  output: string;
  status: string;
} {
  let output = '';
  let status = '';
  for (const event of events) {
    const data = JSON.parse(event.data);
    if (event.event === 'task') ({ output = '', status } = data.task);
    else if (event.event === 'text-delta') output += data.delta;
    else if (event.event === 'status-update') status = data.status;
  }
  return { output, status };
}

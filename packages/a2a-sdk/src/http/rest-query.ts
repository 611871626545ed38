import { type ListTasksRequest, TaskState, taskStateFromJSON } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';

/** Parses a `historyLength` query value the way the SDK's REST binding does. */
export function parseHistoryLength(value: string): number {
  const parsed = Number.parseInt(value, 10);
  if (Number.isNaN(parsed))
    throw new RequestMalformedError('historyLength must be a valid integer');
  if (parsed < 0) throw new RequestMalformedError('historyLength must be non-negative');
  return parsed;
}

function parsePageSize(value: string): number {
  const parsed = Number.parseInt(value, 10);
  if (Number.isNaN(parsed) || String(parsed) !== value.trim()) {
    throw new RequestMalformedError('pageSize must be a valid integer');
  }
  if (parsed < 1 || parsed > 100) {
    throw new RequestMalformedError('pageSize must be between 1 and 100');
  }
  return parsed;
}

/** Whether `includeArtifacts` was asked for. */
export function parseIncludeArtifacts(value: string | undefined): boolean {
  return value === 'true';
}

/** Builds the ListTasks request of `GET /tasks` from its query, as the SDK's REST binding does. */
export function parseListTasksQuery(
  query: Record<string, string | undefined>,
  tenant: string,
): ListTasksRequest {
  const { status, pageSize, historyLength } = query;
  return {
    tenant,
    contextId: query.contextId || '',
    status: status
      ? taskStateFromJSON(Number.isNaN(Number(status)) ? status : Number(status))
      : TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: pageSize !== undefined && pageSize !== '' ? parsePageSize(pageSize) : undefined,
    pageToken: query.pageToken || '',
    historyLength:
      historyLength !== undefined && historyLength !== ''
        ? parseHistoryLength(historyLength)
        : undefined,
    statusTimestampAfter: query.statusTimestampAfter || undefined,
    includeArtifacts: parseIncludeArtifacts(query.includeArtifacts),
  };
}

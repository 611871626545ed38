import { TASK_COLUMNS } from './task-rows.ts';

/** The statements of the task store for a schema (`s`, quoted), each named once per pool. */
export interface TaskSql {
  readonly get: { name: string; text: string };
  readonly relayed: { name: string; text: string };
  readonly read: { name: string; text: string };
  readonly create: { name: string; text: string };
  readonly step: { name: string; text: string };
  /** `create` and `step` that also notify, in their own transaction (see TaskNotifier). */
  readonly createNotifying: { name: string; text: string };
  readonly stepNotifying: { name: string; text: string };
  readonly events: { name: string; text: string };
  readonly list: string;
  readonly deleteExpired: { name: string; text: string };
  readonly changedSince: { name: string; text: string };
  readonly renewLeases: { name: string; text: string };
  readonly lostTasks: { name: string; text: string };
  readonly takeOverLost: { name: string; text: string };
  readonly claimSubmitted: { name: string; text: string };
}

/** The task store's SQL for a schema. */
export function taskSql(schema: string): TaskSql {
  const s = `"${schema}"`;
  const named = (name: string, text: string) => ({ name: `agentport.${schema}.${name}`, text });
  const live = '(expires_at IS NULL OR expires_at > $2)';
  const statements = {
    get: named('get', `SELECT ${TASK_COLUMNS} FROM ${s}.tasks WHERE id = $1 AND ${live}`),
    // A task another process changed, with its newest events after $3 (100 at most), for the
    // listeners of a relayed change: their followers need not read them again.
    relayed: named(
      'relayed',
      `SELECT ${TASK_COLUMNS}, (
  SELECT json_agg(e.event ORDER BY e.seq) FROM ${s}.task_events e
  WHERE e.task_id = t.id AND e.seq > greatest($3::integer, t.seq - 100, t.earliest_after)
) AS recent
FROM ${s}.tasks t WHERE id = $1 AND ${live}`,
    ),
    // A write reads the task whatever its age: an expired one is finished, and refused as such.
    read: named('read', `SELECT ${TASK_COLUMNS} FROM ${s}.tasks WHERE id = $1`),
    create: named(
      'create',
      `WITH created AS (
  INSERT INTO ${s}.tasks (id, context_id, agent_name, status, input, messages, artifacts, metadata,
    created_at, updated_at, seq, earliest_after, retain_ms, lease_owner, lease_expires_at)
  VALUES ($1, $2, $3, $4, $5, $6::json, '[]', $7::json, $8, $8, $9::integer, $10::integer, $11,
    $13::text, $14::timestamptz)
  ON CONFLICT (id) DO NOTHING
  RETURNING id
), logged AS (
  INSERT INTO ${s}.task_events (task_id, seq, event)
  SELECT created.id, $10::integer + e.ordinality, e.value
  FROM created, json_array_elements($12::json) WITH ORDINALITY AS e(value, ordinality)
)
SELECT id FROM created`,
    ),
    // One step, one statement: applied only if no other step came first (its seq), with its
    // events and the log's oldest past the cap dropped, or nothing at all.
    step: named(
      'step',
      `WITH updated AS (
  UPDATE ${s}.tasks SET
    status = $3, status_message = $4::json, error = $5::json, input_request = $6::json,
    output = CASE WHEN $7::boolean THEN $8::text
      WHEN $9::text IS NOT NULL THEN coalesce(output, '') || $9::text ELSE output END,
    messages = coalesce($10::json, messages),
    artifacts = coalesce($11::json, artifacts),
    updated_at = $12, seq = $13::integer, earliest_after = $14::integer,
    expires_at = coalesce($15::timestamptz, expires_at),
    lease_owner = $19::text, lease_expires_at = $20::timestamptz
  WHERE id = $1 AND seq = $2::integer
  RETURNING id
), logged AS (
  INSERT INTO ${s}.task_events (task_id, seq, event)
  SELECT updated.id, $16::integer + e.ordinality, e.value
  FROM updated, json_array_elements($17::json) WITH ORDINALITY AS e(value, ordinality)
), trimmed AS (
  DELETE FROM ${s}.task_events
  WHERE $18::boolean AND task_id = (SELECT id FROM updated) AND seq <= $14::integer
)
SELECT id FROM updated`,
    ),
    // The task's last seq and its log's start with the events asked for, in one snapshot.
    events: named(
      'events',
      `SELECT t.seq AS last_seq, t.earliest_after, e.seq, e.event
FROM ${s}.tasks t
LEFT JOIN ${s}.task_events e ON e.task_id = t.id AND e.seq > $3::integer AND e.seq <= $4::bigint
WHERE t.id = $1 AND (t.expires_at IS NULL OR t.expires_at > $2)
ORDER BY e.seq`,
    ),
    // Not named: a plan made for the filters of each call uses the indexes that fit them.
    list: `SELECT ${TASK_COLUMNS} FROM ${s}.tasks
WHERE sequence < $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR agent_name = $3)
  AND ($4::text IS NULL OR context_id = $4) AND (expires_at IS NULL OR expires_at > $5)
ORDER BY sequence DESC LIMIT $6`,
    deleteExpired: named('delete-expired', `DELETE FROM ${s}.tasks WHERE expires_at <= $1`),
    // The tasks changed since a time, the most recent first (a feed catching up after a drop).
    changedSince: named(
      'changed-since',
      `SELECT id, seq FROM ${s}.tasks WHERE updated_at >= $1 ORDER BY updated_at DESC LIMIT $2`,
    ),
    ...leaseSql(s, named),
  };
  // The same writes with the notification as their last part: $15, $16 of a create, $21, $22 of a step.
  const notifying = (statement: { name: string; text: string }, from: string, params: string) => ({
    name: `${statement.name}-notifying`,
    text: statement.text.replace(
      `\nSELECT id FROM ${from}`,
      `\nSELECT pg_notify(${params}) FROM ${from}`,
    ),
  });
  return {
    ...statements,
    createNotifying: notifying(statements.create, 'created', '$15, $16'),
    stepNotifying: notifying(statements.step, 'updated', '$21, $22'),
  };
}

/** The statements of the leases on working tasks (see the README, "Leases"). */
function leaseSql(
  s: string,
  named: (name: string, text: string) => { name: string; text: string },
): Pick<TaskSql, 'renewLeases' | 'lostTasks' | 'takeOverLost' | 'claimSubmitted'> {
  return {
    // Not a step: a renewal changes no seq, so it never makes a step read the task again.
    renewLeases: named(
      'renew-leases',
      `UPDATE ${s}.tasks SET lease_expires_at = $3
WHERE id = ANY($1::text[]) AND lease_owner = $2 AND status = 'working'`,
    ),
    lostTasks: named(
      'lost-tasks',
      `SELECT id, agent_name FROM ${s}.tasks
WHERE status = 'working' AND lease_expires_at < $1 LIMIT 100`,
    ),
    // The row locks skipped: of replicas taking over at once, each gets tasks of its own.
    takeOverLost: named(
      'take-over-lost',
      `UPDATE ${s}.tasks SET lease_owner = $3, lease_expires_at = $4
WHERE id IN (
  SELECT id FROM ${s}.tasks
  WHERE agent_name = $1 AND status = 'working' AND lease_expires_at < $5
  LIMIT $2 FOR UPDATE SKIP LOCKED
)
RETURNING id`,
    ),
    // A claim is a lease on a submitted task: the other claimers skip it until it runs out.
    claimSubmitted: named(
      'claim-submitted',
      `WITH claimed AS (
  UPDATE ${s}.tasks SET lease_owner = $3, lease_expires_at = $4
  WHERE id IN (
    SELECT id FROM ${s}.tasks
    WHERE agent_name = $1 AND status = 'submitted' AND created_at <= $5
      AND (lease_owner IS NULL OR lease_expires_at < $6)
    ORDER BY sequence DESC
    LIMIT $2 FOR UPDATE SKIP LOCKED
  )
  RETURNING id, sequence
)
SELECT id FROM claimed ORDER BY sequence DESC`,
    ),
  };
}

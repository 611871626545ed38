import { ClientFactory } from '@a2a-js/sdk/client';
import { randomUUID } from 'node:crypto';
const msg = (t) => ({ message: { messageId: randomUUID(), role: 1, parts: [{ content: { $case: 'text', value: t } }] } });
const show = (r) => r.status.state + ' ' + JSON.stringify(r.artifacts?.[0]?.parts?.[0]?.content);
for (const [label, args] of [['base slash', ['http://127.0.0.1:18183/a2a/echo/']], ['card url + empty path', ['http://127.0.0.1:18183/a2a/echo/.well-known/agent-card.json', '']]]) {
  try {
    const client = await new ClientFactory().createFromUrl(...args);
    const r = await client.sendMessage(msg('hello ' + label));
    console.log(label, 'sendMessage OK:', show(r));
  } catch (e) { console.log(label, 'FAIL', e?.message); }
}
try {
  const client = await new ClientFactory().createFromUrl('http://127.0.0.1:18183/a2a/echo/');
  console.log('transport', client.transport?.constructor?.name ?? Object.keys(client));
  const r = await client.listTasks({ pageSize: 10 });
  console.log('listTasks OK: tasks', r.tasks?.length, 'keys', Object.keys(r), r.tasks.map(t => t.status.state).join(','));
} catch (e) { console.log('listTasks FAIL', e?.message); }

import { ClientFactory } from '@a2a-js/sdk/client';
const client = await new ClientFactory().createFromUrl('http://127.0.0.1:18183/a2a/echo/');
try { const r = await client.listTasks({ pageSize: 10 }); console.log('ok', r.tasks.length); } catch (e) { console.log('listTasks FAIL:', e.message); }

import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
const orig = globalThis.fetch;
globalThis.fetch = async (u, init) => { if (init?.body) console.log('wire:', String(init.body).slice(0, 200)); return orig(u, init); };
const client = await new ClientFactory().createFromUrl('http://127.0.0.1:18183/a2a/echo/');
const r = await client.listTasks({ pageSize: 10 });
console.log('got', r.tasks.length, 'nextPageToken', !!r.nextPageToken);
const r2 = await client.listTasks({ pageSize: 2, status: 3 }); console.log('status=3 got', r2.tasks.length, r2.tasks.map(t=>t.status.state));

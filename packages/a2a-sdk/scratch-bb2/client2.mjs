import { ClientFactory } from '@a2a-js/sdk/client';
import * as sdk from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
console.log(Object.keys(sdk).filter(k => /Role|Part|create/i.test(k)).slice(0, 30));
const client = await new ClientFactory().createFromUrl('http://127.0.0.1:18183/a2a/echo/');
const r = await client.sendMessage({ message: { messageId: randomUUID(), role: sdk.Role?.ROLE_USER ?? 1, parts: [{ content: { $case: 'text', value: 'hello world' } }] } });
console.log(JSON.stringify(r, null, 0).slice(0, 900));

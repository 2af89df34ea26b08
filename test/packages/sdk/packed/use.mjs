// Run by pack.test.ts from a folder where only the packed @linktrail/sdk is installed:
// `node use.mjs <baseUrl> <apiKey>`. Prints what it saw as one JSON line.
import http from 'node:http';
import { Linktrail, LinktrailError, verifyWebhook } from '@linktrail/sdk';

const [baseUrl, apiKey] = process.argv.slice(2);
const client = new Linktrail({ apiKey, baseUrl });

const [collection] = await client.collections.create([{ name: 'Packed' }]);
await client.links.create([1, 2, 3].map((i) => ({ url: `https://shop.example/${i}`, collectionId: collection.id })));
const urls = [];
for await (const link of client.links.list({ sort: 'asc', pageSize: 2 })) urls.push(link.url);

let refused;
try {
  await client.links.create([{ url: 'http://shop.example/plain', collectionId: collection.id }]);
} catch (error) {
  refused = error instanceof LinktrailError ? { status: error.status, code: error.code, field: error.field } : String(error);
}

// A receiver on loopback (inside the server's WEBHOOK_ALLOWED_CIDRS): the test event, verified.
let server;
const delivery = new Promise((resolve) => {
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      res.end('ok');
      resolve({ body, headers: req.headers });
    });
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const hook = await client.webhooks.create({ url: `http://127.0.0.1:${server.address().port}/hooks`, events: ['link.created'] });
await client.webhooks.test(hook.id);
const { body, headers } = await delivery;
const event = await verifyWebhook(body, headers, hook.secret);
let forged;
try {
  await verifyWebhook(body.replace('webhook.test', 'webhook.tesT'), headers, hook.secret);
} catch (error) {
  forged = error instanceof LinktrailError ? error.code : String(error);
}
server.close();

console.log(JSON.stringify({ urls, refused, event: { type: event.type, webhookId: event.data.webhookId === hook.id }, forged }));

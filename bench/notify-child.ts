import { ensureTable, localDynamoClient, startDynalite } from '../infra/local/dynamodb.js';
import { startSlackReceiver } from '../infra/local/slack-receiver.js';

// The notify scenario's doubles in a process of their own (dynalite and the Slack Web API double), so the
// benchmark's CPU figure is the notice's alone. Prints one JSON line, then lives until stdin closes.
const dynamo = await startDynalite();
const client = localDynamoClient(dynamo.endpoint);
await ensureTable(client, 'bench');
client.destroy();
const slack = await startSlackReceiver({});
process.stdout.write(`${JSON.stringify({ dynamodb: dynamo.endpoint, slack: slack.apiUrl })}\n`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await slack.close();
  await dynamo.close();
  process.exit(0);
});

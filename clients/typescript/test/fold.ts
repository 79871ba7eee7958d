// fold prints, as one JSON object, the session log of each agent named on
// the command line read from its history (logFromHistory), or {"error": …}
// when it does not fold. ts_test.go runs it with no worker running and
// compares each log with the Go projection's.
import { Client, Connection } from '@temporalio/client';
import { TetherCodec, logFromHistory, parseCodecKeys } from '../src';

async function main(): Promise<void> {
  const connection = await Connection.connect({ address: process.env.TETHER_ADDRESS });
  const keys = process.env.TETHER_CODEC_KEYS;
  const client = new Client({
    connection, namespace: process.env.TETHER_NAMESPACE ?? 'default',
    dataConverter: keys ? { payloadCodecs: [new TetherCodec({ keys: parseCodecKeys(keys) })] } : undefined,
  });
  const out: Record<string, unknown> = {};
  try {
    for (const id of process.argv.slice(2)) {
      try {
        out[id] = await logFromHistory(client, id);
      } catch (err) {
        out[id] = { error: (err as Error).message };
      }
    }
  } finally {
    await connection.close();
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

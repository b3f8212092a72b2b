import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const SERVER = `
const http = require('node:http');
const [answer, type] = process.argv.slice(1);
http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': type }); res.end(answer); });
}).listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });
`;

/**
 * An HTTP server in another process (its CPU is not the measured process's) answering every request with
 * `answer` as `contentType`, on a loopback port, until `stop()`.
 */
export async function loopbackServer(
  answer: string,
  contentType: string,
): Promise<{ port: number; stop: () => void }> {
  const server = spawn(process.execPath, ['-e', SERVER, answer, contentType], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
  const port = Number((await lines.next()).value);
  return { port, stop: () => server.kill() };
}

/**
 * One pkt-line of Git's wire protocol: four hex digits giving its length (those four bytes included), then
 * the payload (a line ends with its own `\n`). Payloads here are ASCII: commands, capabilities, object ids.
 */
export function pktLine(payload: string): Buffer {
  return Buffer.from(`${(payload.length + 4).toString(16).padStart(4, '0')}${payload}`, 'latin1');
}

import { type HttpResponse, json } from '../http/response.js';

/**
 * The one answer to a delivery that became several pushes (one per ref): our failure on any of them is
 * a 503, so the host redelivers and the pushes already recorded come back as duplicates; all of them
 * duplicates is the usual 200; otherwise 202 with the first rollout (as for one push) and every one.
 */
export function combinedAnswer(deliveryId: string, answers: readonly HttpResponse[]): HttpResponse {
  const failed = answers.find((answer) => answer.statusCode >= 500);
  if (failed !== undefined) return failed;
  const bodies = answers.map((answer) => parse(answer.body));
  const accepted = bodies.filter((body) => typeof body.rollout === 'string');
  if (accepted.length === 0) return json(200, { duplicate: true });
  return json(202, {
    delivery: deliveryId,
    rollout: accepted[0]?.rollout,
    rollouts: accepted.map((body) => ({ delivery: body.delivery, rollout: body.rollout })),
    ...(accepted.length < bodies.length ? { duplicates: bodies.length - accepted.length } : {}),
  });
}

function parse(body: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

// `--peer`'s rows: ours (every cache off) and PostGraphile on the same two requests, in rounds.

import { type PeerChild, type PeerInstall, checkSameAnswers, type peerRequests } from './peer/peer.js';
import { type Row, type Target, cpuMicrosOf, sqlPerRequest } from './rows.js';
import type { ServerChild } from './server-child.js';
import { type LoadResult, wrk } from './wrk.js';

/**
 * `--peer`: each request on ours (every cache off) and on the peer, after the check that both answer
 * the same events; warmed up alike, then timed in alternating rounds so that a change of the shared
 * machine's load falls on both. A row's req/s and latencies are the median of its rounds; its CPU per
 * request is over all of them.
 */
export async function measurePeer(
  ours: ServerChild,
  peer: PeerChild,
  requests: ReturnType<typeof peerRequests>,
  script: string,
  { connections, duration, warmup, rounds }: Record<'connections' | 'duration' | 'warmup' | 'rounds', number>,
): Promise<{ rows: Row[]; notes: string[] }> {
  const { total } = await checkSameAnswers(`${ours.origin}/graphql`, `${peer.origin}/graphql`, requests);
  const rows: Row[] = [];
  const notes = [
    `peer check: the same page (10 of ${total} events) and the same single event, with the same venues, ` +
      'organizers, categories and tags in the same order',
  ];
  for (const kind of ['list', 'single'] as const) {
    const what = kind === 'list' ? 'list of 10 with relations and total' : 'single event with relations';
    const pair: Target[] = [
      {
        name: `GraphQL ${what}, ours uncached`,
        url: `${ours.origin}/graphql`,
        body: requests[kind].ours,
        server: ours,
      },
      {
        name: `GraphQL ${what}, PostGraphile`,
        url: `${peer.origin}/graphql`,
        body: requests[kind].peer,
        server: peer,
      },
    ];
    if (warmup > 0)
      for (const target of pair) await wrk(target.url, target.body, connections, warmup, script);
    const results: LoadResult[][] = pair.map(() => []);
    const cpu = pair.map(() => 0);
    for (let round = 0; round < rounds; round++)
      for (const [i, target] of pair.entries()) {
        const before = await cpuMicrosOf(target);
        results[i]!.push(await wrk(target.url, target.body, connections, duration, script));
        cpu[i]! += (await cpuMicrosOf(target)) - before;
      }
    const measured: Row[] = [];
    for (const [i, target] of pair.entries()) {
      const result = combineRounds(results[i]!);
      const cpuPerRequest = cpu[i]! / 1000 / result.requests;
      measured.push({ target, result, cpuPerRequest, sqlPerRequest: await sqlPerRequest(target) });
    }
    const [oursRow, peerRow] = measured as [Row, Row];
    oursRow.versusPeer = {
      rps: oursRow.result!.rps / peerRow.result!.rps,
      cpu: oursRow.cpuPerRequest! / peerRow.cpuPerRequest!,
    };
    rows.push(oursRow, peerRow);
    const byRound = results[0]!.map((r, k) => `${r.rps.toFixed(0)} / ${results[1]![k]!.rps.toFixed(0)}`);
    notes.push(`peer ${kind}, req/s by round (ours / peer): ${byRound.join(', ')}`);
    console.log(`measured ${kind}: ours and the peer`);
  }
  return { rows, notes };
}

/** Rounds of one row as one result: the median round's rates and latencies, the sums of the counts. */
function combineRounds(results: LoadResult[]): LoadResult {
  const median = (pick: (r: LoadResult) => number) => {
    const sorted = results.map(pick).sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  const sum = (pick: (r: LoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  return {
    rps: median((r) => r.rps),
    p50: median((r) => r.p50),
    p99: median((r) => r.p99),
    requests: sum((r) => r.requests),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    bytes: sum((r) => r.bytes),
  };
}

export function describePeer(install: PeerInstall, rssMb: number, rounds: number): string[] {
  const versions = Object.entries(install.versions).map(([name, version]) => `${name} ${version}`);
  return [
    `peer: ${versions.join(', ')} (${install.dir}); peak RSS ${rssMb.toFixed(0)} MB; ours runs on Node ${process.version}`,
    `peer rows: ${rounds} rounds each, alternating ours / peer; req/s and latencies the median round, CPU over all rounds`,
  ];
}

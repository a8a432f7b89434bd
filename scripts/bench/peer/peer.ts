// `npm run bench -- --peer`: PostGraphile 5 over the same PostgreSQL database, asked for the same events
// as the service. Its packages (pinned in scripts/bench/peer/package-lock.json) and, when this Node is older
// than 22, a Node 22 are installed outside the repository on first use and reused afterwards: the peer
// is never one of the service's dependencies.
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { CATEGORY, TAG } from '../../../src/terms/terms.js';
import { askChild } from '../child-questions.js';

const run = promisify(execFile);
const SOURCE = (name: string) => new URL(name, import.meta.url).pathname;
/** Where the installs are kept between runs (BENCH_PEER_DIR overrides it). */
const CACHE_ROOT = process.env.BENCH_PEER_DIR ?? join(tmpdir(), 'calendar-bench-peer');

async function npm(args: string[], what: string): Promise<void> {
  try {
    await run('npm', [...args, '--no-audit', '--no-fund'], { maxBuffer: 16 << 20 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`installing ${what} failed:\n${stdout}${stderr}`, { cause: error });
  }
}

/**
 * Fills `dir` once: `fill` writes into a folder of its own, renamed into place when complete, so an
 * interrupted install is never taken for a finished one.
 */
async function installOnce(dir: string, fill: (staging: string) => Promise<void>): Promise<void> {
  if (existsSync(dir)) return;
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await fill(staging);
    // Another run may have finished the same install meanwhile: keep the first.
    if (!existsSync(dir)) renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export interface PeerInstall {
  /** The Node that runs the peer (>= 22, PostGraphile 5's floor). */
  node: string;
  /** The peer's folder: its node_modules and the copy of server.mjs that resolves from it. */
  dir: string;
  versions: Record<string, string>;
}

/** The peer's packages and a Node to run them: installed on first use, reused when present. */
export async function installPeer(log: (line: string) => void): Promise<PeerInstall> {
  const manifest = readFileSync(SOURCE('package.json'));
  const lock = readFileSync(SOURCE('package-lock.json'));
  // Named by the pinned set: a changed lock file gets a fresh install beside the old one.
  const hash = createHash('sha256').update(manifest).update(lock).digest('hex').slice(0, 16);
  const dir = join(CACHE_ROOT, `packages-${hash}`);
  if (!existsSync(dir)) log(`installing the peer's packages into ${dir}`);
  await installOnce(dir, async (staging) => {
    copyFileSync(SOURCE('package.json'), join(staging, 'package.json'));
    copyFileSync(SOURCE('package-lock.json'), join(staging, 'package-lock.json'));
    // None of the pinned packages has an install script.
    await npm(['ci', '--prefix', staging, '--ignore-scripts'], "the peer's packages");
  });
  // Copied every run, so an edit of server.mjs applies without reinstalling.
  copyFileSync(SOURCE('server.mjs'), join(dir, 'server.mjs'));

  let node = process.execPath;
  if (Number(process.versions.node.split('.')[0]) < 22) {
    // As .ci/run gets Node 22: the registry's `node` package, which ships the platform's binary.
    const nodeDir = join(CACHE_ROOT, 'node22');
    if (!existsSync(nodeDir)) log(`installing Node 22 into ${nodeDir}`);
    await installOnce(nodeDir, (staging) => {
      // Its preinstall fetches the binary: allowed by name, as npm asks of a project.
      writeFileSync(join(staging, 'package.json'), '{"private": true, "allowScripts": {"node": true}}\n');
      return npm(['install', '--prefix', staging, '--no-save', 'node@22'], 'Node 22');
    });
    node = join(nodeDir, `node_modules/node/node_modules/node-${process.platform}-${process.arch}/bin/node`);
  }
  const { dependencies } = JSON.parse(manifest.toString()) as { dependencies: Record<string, string> };
  const { stdout } = await run(node, ['--version']);
  return { node, dir, versions: { ...dependencies, node: stdout.trim() } };
}

/** The peer's server in a child process (scripts/bench/peer/server.mjs): its CPU, memory and statements. */
export class PeerChild {
  private readonly questions = { asked: 0 };

  private constructor(
    private readonly child: ChildProcess,
    readonly origin: string,
  ) {}

  static async start(install: PeerInstall, databaseUrl: string): Promise<PeerChild> {
    const child = fork(join(install.dir, 'server.mjs'), [], {
      execPath: install.node,
      execArgv: [],
      // Grafast's production mode, as a deployment runs it (and without its notice saying so).
      env: { ...process.env, DATABASE_URL: databaseUrl, GRAPHILE_ENV: 'production' },
      stdio: 'inherit',
    });
    const [port] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`the peer exited (${code})`))),
    ])) as [number];
    return new PeerChild(child, `http://127.0.0.1:${port}`);
  }

  private ask(question: 'sql' | 'reset' | 'cpu' | 'rss'): Promise<number> {
    return askChild(this.child, this.questions, question);
  }

  resetSql = () => this.ask('reset');
  sql = () => this.ask('sql');
  cpuMicros = () => this.ask('cpu');
  peakRssMb = async () => (await this.ask('rss')) / 1024;
  stop = () => this.child.kill();
}

// The same selection on both sides: the event's id, title, start and end, and the ids and names of its
// venues, organizers, categories and tags; the list adds the total.
const OURS_RELATED = '{ databaseId name }';
const OURS_EVENT = `databaseId title startDate endDate venues ${OURS_RELATED} organizers ${OURS_RELATED}
  categories ${OURS_RELATED} tags ${OURS_RELATED}`;
const OURS_LIST = `query PeerList { events(perPage: 10) { pageInfo { total } items { ${OURS_EVENT} } } }`;
const OURS_SINGLE = `query PeerSingle($id: Int!) { event(id: $id) { ${OURS_EVENT} } }`;

// PostGraphile's names for the same: many-to-many connections through the link tables. Their edges
// carry the link's `position`; they are ordered by the related row's key (the plugin orders by the
// target table only), so the check below puts them in position order, the service's.
const PEER_RELATED = '{ edges { position node { rowId name } } }';
const terms = (taxonomy: string) =>
  `termsByEventTermEventIdAndTermId(filter: { taxonomy: { equalTo: "${taxonomy}" } }) ${PEER_RELATED}`;
const PEER_EVENT = `rowId title startsAt endsAt
  venues: venuesByEventVenueEventIdAndVenueId ${PEER_RELATED}
  organizers: organizersByEventOrganizerEventIdAndOrganizerId ${PEER_RELATED}
  categories: ${terms(CATEGORY)} tags: ${terms(TAG)}`;
// The service's default list: published, listed, in the window, by local start then id.
const PEER_LIST = `query PeerList($from: String!, $to: String!) {
  allEvents(first: 10, orderBy: [LOCAL_START_ASC, ROW_ID_ASC], filter: {
    status: { equalTo: "publish" }, hideFromListings: { equalTo: false },
    localStart: { greaterThanOrEqualTo: $from }, localEnd: { lessThanOrEqualTo: $to } }) {
    totalCount nodes { ${PEER_EVENT} } } }`;
const PEER_SINGLE = `query PeerSingle($id: Int!) { eventByRowId(rowId: $id) { ${PEER_EVENT} } }`;

/** The two requests' POST bodies on each side; `window` is the default list window (wall-clock). */
export function peerRequests(window: readonly [string, string], eventId: number) {
  const body = (query: string, variables: Record<string, unknown> = {}) =>
    JSON.stringify({ query, variables });
  return {
    list: { ours: body(OURS_LIST), peer: body(PEER_LIST, { from: window[0], to: window[1] }) },
    single: { ours: body(OURS_SINGLE, { id: eventId }), peer: body(PEER_SINGLE, { id: eventId }) },
  };
}

interface Related {
  id: number;
  name: string;
}
interface ComparableEvent {
  id: number;
  title: string;
  /** Epoch ms: the two sides print instants differently. */
  start: number;
  end: number;
  venues: Related[];
  organizers: Related[];
  categories: Related[];
  tags: Related[];
}
interface Comparable {
  total?: number;
  events: ComparableEvent[];
}

type OursRelated = { databaseId: number; name: string };
type OursEvent = { databaseId: number; title: string; startDate: string; endDate: string } & Record<
  'venues' | 'organizers' | 'categories' | 'tags',
  OursRelated[]
>;
type PeerRelated = { edges: Array<{ position: number; node: { rowId: number; name: string } }> };
type PeerEvent = { rowId: number; title: string; startsAt: string; endsAt: string } & Record<
  'venues' | 'organizers' | 'categories' | 'tags',
  PeerRelated
>;

const instant = (value: string) =>
  // PostgreSQL's `timestamp` (Prisma's DateTime) is printed without a zone: it holds UTC.
  Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(value) ? value : `${value}Z`);

const RELATIONS = ['venues', 'organizers', 'categories', 'tags'] as const;

function fromOurs(event: OursEvent): ComparableEvent {
  const related = (list: OursRelated[]) => list.map(({ databaseId, name }) => ({ id: databaseId, name }));
  return {
    id: event.databaseId,
    title: event.title,
    start: instant(event.startDate),
    end: instant(event.endDate),
    ...(Object.fromEntries(RELATIONS.map((key) => [key, related(event[key])])) as Record<
      (typeof RELATIONS)[number],
      Related[]
    >),
  };
}

function fromPeer(event: PeerEvent): ComparableEvent {
  const related = ({ edges }: PeerRelated) =>
    edges
      .toSorted((a, b) => a.position - b.position)
      .map(({ node }) => ({ id: node.rowId, name: node.name }));
  return {
    id: event.rowId,
    title: event.title,
    start: instant(event.startsAt),
    end: instant(event.endsAt),
    ...(Object.fromEntries(RELATIONS.map((key) => [key, related(event[key])])) as Record<
      (typeof RELATIONS)[number],
      Related[]
    >),
  };
}

async function ask(url: string, body: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
  });
  const answer = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown };
  if (!response.ok || answer.errors || !answer.data)
    throw new Error(`${url} answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
  return answer.data;
}

/** Throws unless both sides answer both requests with the same events, in the same order, with the same relations. */
export async function checkSameAnswers(
  oursUrl: string,
  peerUrl: string,
  requests: ReturnType<typeof peerRequests>,
): Promise<{ total: number }> {
  const oursList = (await ask(oursUrl, requests.list.ours)).events as {
    pageInfo: { total: number };
    items: OursEvent[];
  };
  const peerList = (await ask(peerUrl, requests.list.peer)).allEvents as {
    totalCount: number;
    nodes: PeerEvent[];
  };
  const oursSingle = (await ask(oursUrl, requests.single.ours)).event as OursEvent | null;
  const peerSingle = (await ask(peerUrl, requests.single.peer)).eventByRowId as PeerEvent | null;
  if (!oursSingle || !peerSingle) throw new Error('the single event was not found on both sides');
  const pairs: Array<[string, Comparable, Comparable]> = [
    [
      'list',
      { total: oursList.pageInfo.total, events: oursList.items.map(fromOurs) },
      { total: peerList.totalCount, events: peerList.nodes.map(fromPeer) },
    ],
    ['single', { events: [fromOurs(oursSingle)] }, { events: [fromPeer(peerSingle)] }],
  ];
  for (const [name, ours, peer] of pairs) {
    if (ours.events.length === 0) throw new Error(`the ${name} answer is empty: nothing to compare`);
    if (!isDeepStrictEqual(ours, peer))
      throw new Error(
        `the peer's ${name} differs from ours:\nours ${JSON.stringify(ours)}\npeer ${JSON.stringify(peer)}`,
      );
  }
  return { total: oursList.pageInfo.total };
}

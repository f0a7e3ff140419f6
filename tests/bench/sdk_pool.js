// The pool bench's peer: the official @daytonaio/sdk (0.218.0) doing the
// same concurrent validations as `poolbench` (tests/bench/poolbench.c), with
// Promise.all over C validations at a time, N in all:
//   session: one sandbox (created before the window), a session each;
//   sandbox: a sandbox created from the snapshot per validation, deleted
//            after it.
// One validation = the C side's steps: make the working directory, upload
// the program, exec it (async), follow its log (WebSocket) to the end, the
// exit code, download the results JSON and parse it, close the session.
// One untimed validation first (as poolbench). Usage:
//   node sdk_pool.js http://127.0.0.1:PORT session|sandbox C N SDK_DIR
// Prints one JSON line with the fields poolbench prints: CPU of this process
// over the window (process.cpuUsage), the emulator's counts over it.
'use strict';
const path = require('path');

const [base, iso, cArg, nArg, sdkDir] = process.argv.slice(2);
const { Daytona } = require(path.join(sdkDir, 'node_modules', '@daytonaio', 'sdk'));
const conc = parseInt(cArg, 10);
const total = parseInt(nArg, 10);
const SNAP = 'bench-pool-snap';
const PROGRAM = Buffer.from('echo \'{"ok":true}\' >"$DVAL_RESULTS_DIR/r.json" && echo ok\n');

async function stats() {
  return (await fetch(base + '/_emu/stats')).json();
}

// the validation proper, on a started sandbox; `id` names its session and
// working directory
async function validateIn(sandbox, id) {
  const sid = 'val-' + id;
  const wd = '/sandbox/' + sid;
  await sandbox.process.createSession(sid);
  try {
    await sandbox.fs.createFolder(wd, '755');
    await sandbox.fs.uploadFile(PROGRAM, wd + '/run.sh');
    const cmd = `cd ${wd} && mkdir -p results && DVAL_RESULTS_DIR=${wd}/results sh run.sh`;
    const r = await sandbox.process.executeSessionCommand(sid, { command: cmd, runAsync: true });
    let out = '';
    await sandbox.process.getSessionCommandLogs(sid, r.cmdId, (c) => { out += c; }, () => {});
    const done = await sandbox.process.getSessionCommand(sid, r.cmdId);
    if (done.exitCode !== 0 || out.trim() !== 'ok') {
      throw new Error('exec: ' + JSON.stringify(done) + ' out [' + out + ']');
    }
    const doc = JSON.parse((await sandbox.fs.downloadFile(wd + '/results/r.json')).toString('utf8'));
    if (doc.ok !== true) throw new Error('results: ' + JSON.stringify(doc));
  } finally {
    await sandbox.process.deleteSession(sid);
  }
}

async function validateOwnSandbox(daytona, id) {
  const sandbox = await daytona.create({ snapshot: SNAP, name: 'bench-pool-' + id });
  try {
    await validateIn(sandbox, id);
  } finally {
    await daytona.delete(sandbox);
  }
}

function pct(walls, q) {
  return walls[Math.min(walls.length - 1, Math.floor(walls.length * q / 100))];
}

async function main() {
  const daytona = new Daytona({ apiKey: 'dtn_bench', apiUrl: base + '/api', target: 'us' });
  try { await daytona.snapshot.get(SNAP); } catch (e) {
    await daytona.snapshot.create({ name: SNAP, image: 'debian:12-slim' });
  }
  const shared = iso === 'session' ? await daytona.create({ snapshot: SNAP, name: 'bench-pool-shared' }) : null;
  const one = (id) => (shared ? validateIn(shared, id) : validateOwnSandbox(daytona, id));
  await one('warm-' + process.pid);
  const walls = [];
  let next = 0, failed = 0;
  async function lane() {
    for (let i; (i = next++) < total;) {
      const t = process.hrtime.bigint();
      try { await one(i + '-' + process.pid); } catch (e) {
        if (failed++ < 3) console.error('sdk_pool: ' + (e && e.message || e));
      }
      walls.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  const s0 = await stats();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: conc }, lane));
  const el = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  if (shared) await daytona.delete(shared);
  const s1 = await stats();
  walls.sort((a, b) => a - b);
  console.log(JSON.stringify({
    executor: 'sdk', isolation: iso, concurrency: conc, validations: total, failed,
    per_s: +(total * 1000 / el).toFixed(2), p50_ms: Math.round(pct(walls, 50)),
    p99_ms: Math.round(pct(walls, 99)), cpu_ms_per_validation: +((cpu.user + cpu.system) / 1000 / total).toFixed(2),
    requests: s1.requests - s0.requests, conns: s1.connections - s0.connections,
    websockets: s1.websockets - s0.websockets, sandboxes_created: s1.sandboxes_created - s0.sandboxes_created,
  }));
  return failed;
}

main().then((f) => process.exit(f ? 1 : 0), (e) => {
  console.error('sdk_pool: ' + (e && e.stack || e));
  process.exit(1);
});

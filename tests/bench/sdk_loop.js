// The benchmark's validation loop done with the official @daytonaio/sdk
// (0.218.0), the same steps as `dvbench loop`: open session -> async exec ->
// follow logs to exit (WebSocket) -> exit code -> download a 64 KiB JSON ->
// close. Usage: node sdk_loop.js http://127.0.0.1:PORT N SDK_DIR
// Prints one JSON object: CPU (process.cpuUsage delta over the loop only)
// and peak RSS (resourceUsage().maxRSS) of this process.
'use strict';
const path = require('path');

const [base, nArg, sdkDir] = process.argv.slice(2);
const { Daytona } = require(path.join(sdkDir, 'node_modules', '@daytonaio', 'sdk'));
const n = parseInt(nArg, 10);
const CMD = 'cp /home/daytona/seed.json /home/daytona/result.json && echo done';

function seedJson(target) {
  const parts = [];
  let len = '{"tests":['.length;
  for (let i = 0; len < target - 80; i++) {
    const p = (i ? ',' : '') + `{"name":"test_${String(i).padStart(6, '0')}","ok":true,"ms":${i % 97}}`;
    parts.push(p);
    len += p.length;
  }
  let s = '{"tests":[' + parts.join('') + '],"pad":"';
  s += 'x'.repeat(target - 2 - s.length) + '"}';
  return s;
}

async function stats() {
  return (await fetch(base + '/_emu/stats')).json();
}

async function main() {
  const daytona = new Daytona({ apiKey: 'dtn_bench', apiUrl: base + '/api', target: 'us' });
  try { await daytona.snapshot.get('bench-snap'); } catch (e) {
    await daytona.snapshot.create({ name: 'bench-snap', image: 'debian:12-slim' });
  }
  const sandbox = await daytona.create({ snapshot: 'bench-snap', name: 'bench-loop-sdk' });
  await sandbox.fs.uploadFile(Buffer.from(seedJson(65536)), '/home/daytona/seed.json');
  const walls = [];
  const s0 = await stats();
  const rssBefore = process.resourceUsage().maxRSS;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const ti = process.hrtime.bigint();
    const sid = 'bench-' + i + '-' + process.pid;
    await sandbox.process.createSession(sid);
    const r = await sandbox.process.executeSessionCommand(sid, { command: CMD, runAsync: true });
    let out = 0;
    await sandbox.process.getSessionCommandLogs(sid, r.cmdId, (c) => { out += c.length; }, () => {});
    const cmd = await sandbox.process.getSessionCommand(sid, r.cmdId);
    if (cmd.exitCode !== 0 || out !== 5) throw new Error('exec: ' + JSON.stringify(cmd) + ' out ' + out);
    const buf = await sandbox.fs.downloadFile('/home/daytona/result.json');
    const doc = JSON.parse(buf.toString('utf8'));
    if (buf.length !== 65536 || !doc.tests) throw new Error('download: ' + buf.length);
    await sandbox.process.deleteSession(sid);
    walls.push(Number(process.hrtime.bigint() - ti) / 1e6);
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const s1 = await stats();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  walls.sort((a, b) => a - b);
  const p = (q) => walls[Math.min(walls.length, Math.max(1, Math.ceil(q / 100 * walls.length))) - 1];
  console.log(JSON.stringify({
    client: 'sdk', n, loop_cpu_ms: cpuMs, cpu_ms_per_loop: cpuMs / n,
    hwm_kb_before_loop: rssBefore, hwm_kb: process.resourceUsage().maxRSS, wall_s: wall,
    conns: s1.connections - s0.connections, requests: s1.requests - s0.requests,
    websockets: s1.websockets - s0.websockets,
    loop_wall_ms: { n, p50: p(50), p90: p(90), p99: p(99), min: walls[0], max: walls[walls.length - 1] },
  }));
  await daytona.delete(sandbox);
}

main().then(() => process.exit(0), (e) => { console.error('sdk_loop: ' + (e && e.stack || e)); process.exit(1); });

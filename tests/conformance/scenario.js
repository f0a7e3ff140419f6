// Runs the official @daytonaio/sdk (0.218.0) against the emulator and checks
// that every step behaves as against a real Daytona.  Usage:
//   node scenario.js http://127.0.0.1:PORT
// Prints "ok"/"FAIL" per check and a last line "N passed, N failed".
'use strict';
const { Daytona, Image } = require('@daytonaio/sdk');

const base = process.argv[2];
if (!base) { console.error('usage: node scenario.js http://127.0.0.1:PORT'); process.exit(2); }
let passed = 0, failed = 0;
function check(name, cond, detail) {
  if (cond) { passed++; console.log('ok   ' + name); }
  else { failed++; console.log('FAIL ' + name + (detail === undefined ? '' : ' ' + JSON.stringify(detail))); }
}
async function emu(path, body) {
  const r = await fetch(base + '/_emu/' + path, body === undefined ? {} :
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return r.json();
}
async function step(name, fn) {
  try { await fn(); } catch (e) { check(name + ' (no exception)', false, String(e && e.stack || e)); }
}

async function main() {
  const daytona = new Daytona({ apiKey: 'dtn_conformance', apiUrl: base + '/api', target: 'us' });
  const snapName = 'conf-snap-py312';
  let sandbox, cmdId;

  await step('snapshot create (image pull)', async () => {
    const s = await daytona.snapshot.create({ name: snapName, image: 'python:3.12-slim' });
    check('snapshot.create returns active', s.state === 'active', s.state);
    const g = await daytona.snapshot.get(snapName);
    check('snapshot.get by name', g.name === snapName && g.id === s.id && g.state === 'active');
  });

  await step('snapshot create (declarative build, logs)', async () => {
    const logs = [];
    // long enough for the SDK's 1 s poll to see "building" and open the log stream
    await emu('config', { snapshot_build_ms: 2500 });
    const image = Image.base('python:3.12-slim').runCommands('pip install pytest==8.3.3');
    const s = await daytona.snapshot.create({ name: 'conf-built', image },
      { onLogs: (l) => logs.push(l) });
    await emu('config', { snapshot_build_ms: 200 });
    check('built snapshot active', s.state === 'active', s.state);
    check('build logs streamed', logs.join('\n').includes('RUN pip install pytest==8.3.3'), logs);
  });

  await step('snapshot conflict', async () => {
    try {
      await daytona.snapshot.create({ name: snapName, image: 'python:3.12-slim' });
      check('duplicate snapshot rejected', false);
    } catch (e) {
      check('duplicate snapshot -> 409 conflict error', e.statusCode === 409, [e.constructor.name, e.statusCode, e.message]);
    }
  });

  await step('sandbox create', async () => {
    sandbox = await daytona.create({ snapshot: snapName, name: 'conf-sbx-1', labels: { purpose: 'conformance' },
      envVars: { CONF_VAR: 'v1' }, autoStopInterval: 60 });
    check('create -> started', sandbox.state === 'started', sandbox.state);
    const g = await daytona.get('conf-sbx-1');
    check('get by name', g.id === sandbox.id);
  });

  await step('sandbox stop/start', async () => {
    await sandbox.stop();
    check('stop -> stopped', sandbox.state === 'stopped', sandbox.state);
    await sandbox.start();
    check('start -> started', sandbox.state === 'started', sandbox.state);
  });

  await step('session + async exec + follow', async () => {
    await sandbox.process.createSession('conf-session');
    const r = await sandbox.process.executeSessionCommand('conf-session', {
      command: 'for i in 1 2 3; do echo out$i; echo err$i >&2; sleep 0.1; done; echo $CONF_VAR', runAsync: true });
    cmdId = r.cmdId;
    check('async exec returns cmdId', typeof cmdId === 'string' && cmdId.length > 0, r);
    const out = [], err = [];
    await sandbox.process.getSessionCommandLogs('conf-session', cmdId, (c) => out.push(c), (c) => err.push(c));
    check('ws follow stdout via callbacks', out.join('') === 'out1\nout2\nout3\nv1\n', out);
    check('ws follow stderr via callbacks', err.join('') === 'err1\nerr2\nerr3\n', err);
    const cmd = await sandbox.process.getSessionCommand('conf-session', cmdId);
    check('getSessionCommand exitCode 0', cmd.exitCode === 0, cmd);
    const logs = await sandbox.process.getSessionCommandLogs('conf-session', cmdId);
    check('non-follow logs stdout/stderr', logs.stdout === 'out1\nout2\nout3\nv1\n' && logs.stderr === 'err1\nerr2\nerr3\n', logs);
  });

  await step('sync exec + session state', async () => {
    await sandbox.process.executeSessionCommand('conf-session', { command: 'cd /sandbox && export X=7' });
    const r = await sandbox.process.executeSessionCommand('conf-session', { command: 'echo $X $(pwd); (exit 3)' });
    check('sync exec: cd/export persist, exit code', r.exitCode === 3 && r.stdout === '7 /sandbox\n', r);
  });

  await step('files', async () => {
    await sandbox.fs.uploadFile(Buffer.from('hello world\n'), '/home/daytona/in/in.txt');
    const r = await sandbox.process.executeSessionCommand('conf-session',
      { command: 'tr a-z A-Z < /home/daytona/in/in.txt > /home/daytona/result.txt' });
    check('command sees uploaded file', r.exitCode === 0, r);
    const buf = await sandbox.fs.downloadFile('/home/daytona/result.txt');
    check('downloadFile returns produced content', buf.toString() === 'HELLO WORLD\n', buf.toString());
    try {
      await sandbox.fs.downloadFile('/home/daytona/missing.txt');
      check('download of a missing file fails', false);
    } catch (e) {
      check('download of a missing file fails', /not found/i.test(String(e.message)) || e.statusCode === 404, e.message);
    }
  });

  await step('errors', async () => {
    try { await daytona.get('no-such-sandbox'); check('missing sandbox -> not found', false); }
    catch (e) { check('missing sandbox -> DaytonaNotFoundError 404', e.statusCode === 404 && e.constructor.name === 'DaytonaNotFoundError', [e.constructor.name, e.statusCode]); }
    try {
      await sandbox.process.executeSessionCommand('no-session', { command: 'true' });
      check('exec in unknown session fails', false);
    } catch (e) { check('exec in unknown session -> 500 wrapped message', e.statusCode === 500 && /session not found/.test(e.message), [e.statusCode, e.message]); }
  });

  await step('cleanup', async () => {
    await sandbox.process.deleteSession('conf-session');
    await daytona.delete(sandbox);
    let gone = false;
    for (let i = 0; i < 50 && !gone; i++) {
      try { await daytona.get(sandbox.id); await new Promise((r) => setTimeout(r, 50)); }
      catch (e) { gone = e.statusCode === 404; }
    }
    check('deleted sandbox disappears (404)', gone);
  });

  await step('wire facts', async () => {
    const reqs = await emu('requests');
    const sdkReqs = reqs.filter((r) => !r.path.startsWith('/api/socket.io'));
    check('SDK headers on every request', sdkReqs.length > 10 && sdkReqs.every((r) =>
      r.headers['x-daytona-source'] === 'sdk-typescript-legacy' && r.headers['x-daytona-sdk-version'] === '0.218.0'
      && r.headers['authorization'] === 'Bearer dtn_conformance'), sdkReqs.length);
    check('upload used bulk-upload', reqs.some((r) => r.path.endsWith('/files/bulk-upload')));
    check('download used bulk-download', reqs.some((r) => r.path.endsWith('/files/bulk-download')));
    const stats = await emu('stats');
    check('log follow used a WebSocket', stats.websockets >= 1, stats);
  });
}

main().then(() => {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}, (e) => { console.log('FAIL scenario crashed ' + e); console.log(`${passed} passed, ${failed + 1} failed`); process.exit(1); });

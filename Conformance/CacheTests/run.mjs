// Runs the http-tests cache-tests suite against NetKit's private HTTP cache (see README.md).
//
//   node run.mjs SUITE_DIR CLIENT_BINARY urlsession|ahc [--json FILE] [--id TEST_ID] [--verbose]
//
// SUITE_DIR is a checkout of https://github.com/http-tests/cache-tests. The suite's server runs in a child process
// on a free port of 127.0.0.1; the suite's client runner runs here, with the suite's private-cache selection
// (browserCache = true), and every request it makes to `/test/…` goes to CLIENT_BINARY (cache-tests-client), which
// sends it through NetKit's engine and its ResponseCache. The suite's own `/config/` and `/state/` calls go
// straight to the server.

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import readline from 'node:readline'
import { pathToFileURL } from 'node:url'

const SERVER_START_SECONDS = 15
const RUN_SECONDS = 20 * 60
const STOP_SECONDS = 10

function suiteModule (suiteDir, relative) {
  return import(pathToFileURL(path.resolve(suiteDir, relative)).href)
}

// MARK: The server child: the suite's own request handlers, on 127.0.0.1 only

async function serve (suiteDir) {
  // server.mjs listens on every interface of a fixed port; its handlers are the whole server, so they run here
  // on a loopback port the system picks. Files outside /config/, /test/ and /state/ are not served.
  const handleConfig = (await suiteModule(suiteDir, 'test-engine/server/handle-config.mjs')).default
  const handleTest = (await suiteModule(suiteDir, 'test-engine/server/handle-test.mjs')).default
  const handleState = (await suiteModule(suiteDir, 'test-engine/server/handle-state.mjs')).default
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1/')
    const segments = url.pathname.split('/')
    segments.shift()
    const dispatch = segments.shift()
    if (dispatch === 'config') {
      handleConfig(segments, request, response)
    } else if (dispatch === 'test') {
      handleTest(segments, request, response)
    } else if (dispatch === 'state') {
      handleState(segments, request, response)
    } else {
      response.writeHead(404, { 'Content-Type': 'text/plain' })
      response.end('Not Found\n')
    }
  })
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`LISTENING ${server.address().port}\n`)
  })
  // The parent's end is the server's end.
  process.stdin.resume()
  process.stdin.on('end', () => process.exit(0))
}

// MARK: Helpers

function usage () {
  console.error('usage: node run.mjs SUITE_DIR CLIENT_BINARY urlsession|ahc [--json FILE] [--id TEST_ID] [--verbose]')
  process.exit(2)
}

function withTimeout (promise, seconds, what) {
  let timer
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${seconds} s`)), seconds * 1000)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

async function stopChild (child, name) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.stdin.end()
  try {
    await withTimeout(exited, STOP_SECONDS, `${name} stop`)
  } catch {
    child.kill('SIGKILL')
    await withTimeout(exited, STOP_SECONDS, `${name} kill`).catch(() => {})
  }
}

async function startServer (suiteDir, verbose) {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--serve', suiteDir], {
    stdio: ['pipe', 'pipe', 'inherit']
  })
  const lines = readline.createInterface({ input: child.stdout })
  const port = await withTimeout(new Promise((resolve, reject) => {
    child.once('exit', code => reject(new Error(`the server exited (${code}) before listening`)))
    lines.on('line', line => {
      const match = /^LISTENING (\d+)$/.exec(line)
      if (match) {
        resolve(Number(match[1]))
      } else if (verbose) {
        console.error(`[server] ${line}`)
      }
    })
  }), SERVER_START_SECONDS, 'server start')
  return { child, port }
}

// MARK: The client child and the fetch shim

class Client {
  constructor (binary, transport, verbose) {
    this.child = spawn(binary, [transport], { stdio: ['pipe', 'pipe', 'inherit'] })
    this.pending = new Map()
    this.nextId = 1
    this.exited = false
    readline.createInterface({ input: this.child.stdout }).on('line', line => {
      let answer
      try {
        answer = JSON.parse(line)
      } catch {
        console.error(`[client] ${line}`)
        return
      }
      const waiter = this.pending.get(answer.id)
      if (waiter === undefined) return
      this.pending.delete(answer.id)
      waiter.resolve(answer)
    })
    this.child.on('error', error => {
      this.exited = true
      this.failAll(error)
    })
    // A client that died is reported by 'exit'; writing to it afterwards must not end this process.
    this.child.stdin.on('error', () => {})
    this.child.on('exit', (code, signal) => {
      this.exited = true
      this.failAll(new Error(`cache-tests-client exited (${code ?? signal})`))
    })
    this.verbose = verbose
  }

  failAll (error) {
    for (const waiter of this.pending.values()) waiter.reject(error)
    this.pending.clear()
  }

  send (request, signal) {
    if (this.exited) return Promise.reject(new Error('cache-tests-client is not running'))
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      if (signal) {
        signal.addEventListener('abort', () => {
          if (!this.pending.has(id)) return
          this.pending.delete(id)
          this.child.stdin.write(JSON.stringify({ id, cancel: true }) + '\n')
          reject(new DOMException('This operation was aborted', 'AbortError'))
        }, { once: true })
      }
      this.child.stdin.write(JSON.stringify({ id, ...request }) + '\n')
    })
  }
}

function headerPairs (headers) {
  if (headers === undefined || headers === null) return []
  if (Array.isArray(headers)) return headers.map(([name, value]) => [String(name), String(value)])
  if (headers instanceof Headers) return [...headers]
  return Object.entries(headers).map(([name, value]) => [name, String(value)])
}

function hasHeader (pairs, name) {
  return pairs.some(([n]) => n.toLowerCase() === name.toLowerCase())
}

// The request fields that Fetch's cache modes add (Fetch, "HTTP-network-or-cache fetch"): what a page's
// `cache: 'no-cache'` asks of a browser's cache, a NetKit caller asks with the same fields.
function addCacheModeFields (pairs, mode) {
  if (mode === 'no-cache' && !hasHeader(pairs, 'Cache-Control')) {
    pairs.push(['Cache-Control', 'max-age=0'])
  }
  if (mode === 'no-store' || mode === 'reload') {
    if (!hasHeader(pairs, 'Pragma')) pairs.push(['Pragma', 'no-cache'])
    if (!hasHeader(pairs, 'Cache-Control')) pairs.push(['Cache-Control', 'no-cache'])
  }
}

const nullBodyStatuses = new Set([101, 103, 204, 205, 304])

function makeResponse (answer, method) {
  const headers = new Headers()
  for (const [name, value] of answer.headers || []) {
    try {
      headers.append(name, value)
    } catch (error) {
      console.error(`[shim] response field ${name} dropped: ${error.message}`)
    }
  }
  const status = answer.status
  const inRange = status >= 200 && status <= 599
  const body = nullBodyStatuses.has(status) || method === 'HEAD' ? null : Buffer.from(answer.body || '', 'base64')
  let statusText = answer.statusText || ''
  if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(statusText)) statusText = ''
  const response = new Response(body, { status: inRange ? status : 200, statusText, headers })
  // Response refuses statuses outside 200-599, such as the server's 999 ("304 Not Generated"), which the suite
  // reads: the status is put back on the object.
  if (!inRange) Object.defineProperty(response, 'status', { value: status })
  return response
}

function installFetchShim (client) {
  const realFetch = globalThis.fetch
  globalThis.fetch = async function fetch (input, init = {}) {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url)
    if (!url.pathname.startsWith('/test/')) return realFetch(input, init)
    if (init.signal?.aborted) throw new DOMException('This operation was aborted', 'AbortError')
    const method = (init.method || 'GET').toUpperCase()
    const headers = headerPairs(init.headers)
    addCacheModeFields(headers, init.cache)
    let body = null
    if (init.body !== undefined && init.body !== null) body = Buffer.from(String(init.body)).toString('base64')
    const answer = await client.send({ method, url: url.href, headers, body }, init.signal)
    if ('error' in answer) {
      // What fetch does with a network error.
      throw new TypeError(`fetch failed: ${answer.error}`)
    }
    return makeResponse(answer, method)
  }
}

// MARK: Running the suite

function testList (suites) {
  const list = []
  for (const suite of suites) {
    for (const test of suite.tests) list.push({ suite: suite.id, test })
  }
  return list
}

// The runner's own selection for browserCache = true (runner.mjs): no cdn_only test, no browser_skip test (those
// are for shared caches), browser_only ones included.
function isPrivateCacheTest (test) {
  return test.cdn_only !== true && test.browser_skip !== true
}

async function main () {
  const args = process.argv.slice(2)
  if (args[0] === '--serve') return serve(args[1])
  const positional = []
  const options = { verbose: false }
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--json') options.json = args[++i]
    else if (args[i] === '--id') options.id = args[++i]
    else if (args[i] === '--verbose') options.verbose = true
    else positional.push(args[i])
  }
  if (positional.length !== 3) usage()
  const [suiteDir, binary, transport] = positional
  if (!['urlsession', 'ahc'].includes(transport)) usage()
  try {
    fs.accessSync(binary, fs.constants.X_OK)
  } catch {
    console.error(`${binary} is not an executable (build it: swift build -c release in this folder)`)
    process.exit(2)
  }
  if (!fs.existsSync(path.join(suiteDir, 'tests', 'index.mjs'))) {
    console.error(`${suiteDir} is not a cache-tests checkout (no tests/index.mjs)`)
    process.exit(2)
  }

  const suites = (await suiteModule(suiteDir, 'tests/index.mjs')).default
  const { runTests, getResults } = await suiteModule(suiteDir, 'test-engine/client/runner.mjs')
  const { determineTestResult, resultTypes } = await suiteModule(suiteDir, 'test-engine/lib/results.mjs')

  let selected = suites
  if (options.id !== undefined) {
    selected = []
    for (const suite of suites) {
      const tests = suite.tests.filter(test => test.id === options.id)
      for (const test of tests) test.dump = true
      if (tests.length) selected.push({ ...suite, tests })
    }
    if (!selected.length) {
      console.error(`no test ${options.id}`)
      process.exit(2)
    }
  }

  const server = await startServer(suiteDir, options.verbose)
  const client = new Client(binary, transport, options.verbose)
  const baseUrl = `http://127.0.0.1:${server.port}`
  installFetchShim(client)
  console.error(`cache-tests: suite at ${baseUrl}, NetKit over ${transport}`)

  const started = Date.now()
  let runError
  try {
    await withTimeout(runTests(selected, true, baseUrl), RUN_SECONDS, 'the suite')
  } catch (error) {
    runError = error
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  // The client ends only when its standard input closes, below: an earlier end failed every request after it.
  if (!runError && client.exited) runError = new Error('cache-tests-client ended during the run')
  await stopChild(client.child, 'cache-tests-client')
  await stopChild(server.child, 'server')
  if (runError) {
    console.error(`the run failed: ${runError.stack || runError}`)
    process.exit(1)
  }

  const results = getResults()
  const all = testList(suites).filter(({ test }) => isPrivateCacheTest(test) && test.id in results)
  const counts = {}
  const failures = []
  const passedButDependent = []
  for (const { suite, test } of all) {
    const kind = test.kind || 'required'
    const result = results[test.id]
    // What cache-tests.fyi shows: a test whose `depends_on` did not pass is a dependency failure, whatever its own
    // result.
    const shown = determineTestResult(suites, test.id, results)
    const shownName = Object.keys(resultTypes).find(key => resultTypes[key] === shown)
    counts[kind] ??= { passed: 0, shown: 0, total: 0 }
    counts[kind].total++
    if (shown === resultTypes.pass || shown === resultTypes.yes) counts[kind].shown++
    if (result === true) {
      counts[kind].passed++
      if (kind !== 'check' && shown !== resultTypes.pass) {
        passedButDependent.push({ id: test.id, kind, dependsOn: (test.depends_on || []).join(', ') })
      }
    } else if (kind !== 'check') {
      const reason = Array.isArray(result) ? `${result[0]}: ${result[1]}` : String(result)
      failures.push({ id: test.id, suite, kind, result: shownName, reason })
    }
  }

  const line = kind => {
    const c = counts[kind] || { passed: 0, shown: 0, total: 0 }
    return `${c.passed}/${c.total} passed (${c.shown}/${c.total} as cache-tests.fyi shows them, dependencies honoured)`
  }
  console.log(`NetKit ResponseCache over ${transport}: the cache-tests suite's private-cache tests (${seconds} s)`)
  console.log(`  required: ${line('required')}`)
  console.log(`  optimal:  ${line('optimal')}`)
  const checks = counts.check || { passed: 0, total: 0 }
  console.log(`  checks:   ${checks.passed}/${checks.total} answered yes (not counted)`)
  if (failures.length) {
    console.log('')
    console.log('Failing required and optimal tests (id [kind, result on cache-tests.fyi] reason):')
    for (const f of failures) console.log(`  ${f.id} [${f.kind}, ${f.result}] ${f.reason}`)
  }
  if (passedButDependent.length) {
    console.log('')
    console.log('Passed, but shown as dependency_fail on cache-tests.fyi (id [kind] depends on):')
    for (const p of passedButDependent) console.log(`  ${p.id} [${p.kind}] ${p.dependsOn}`)
  }
  if (options.json) {
    fs.writeFileSync(options.json, JSON.stringify(results, null, 2) + '\n')
    console.log(`\nresults (the suite's format) written to ${options.json}`)
  }
}

await main()

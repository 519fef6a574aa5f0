// QA console of the standby licensing mock server. Plain JavaScript, no build step: the server
// ships this file as it is. Everything it shows comes from the admin API (/admin), the standby's
// management API (with the key typed in), the built-in issuer (read tokens) and the event
// service. Text from the server goes into the page through textContent only.

const here = new URL('./', location.href); // <server>/admin/
const root = new URL('../', here); // <server>/
const REFRESH_MS = 2000;
const MAX_LOG_ROWS = 500;
const MAX_FEED_ROWS = 500;
const HOUR_MS = 3_600_000;

const $ = (id) => document.getElementById(id);

const REASONS = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Too Large',
  415: 'Unsupported Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
const OUTCOMES = {
  reset: 'connection reset (no answer)',
  hang: 'hung (no answer; client gave up)',
  aborted: 'client gave up',
};
const SERVICE_NAMES = {
  main: 'Main',
  standby: 'Standby',
  idp: 'ID-token issuer',
  events: 'Events',
};

// --- HTTP ---

class HttpError extends Error {
  constructor(status, body) {
    const text =
      body && typeof body === 'object' && 'error' in body
        ? `${body.error}${body.error_description ? `: ${body.error_description}` : ''}`
        : `HTTP ${status}`;
    super(text);
    this.status = status;
  }
}

async function request(url, { method = 'GET', body, headers = {}, signal } = {}) {
  const init = { method, headers: { ...headers }, cache: 'no-store' };
  if (signal) init.signal = signal;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let parsed;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!response.ok) throw new HttpError(response.status, parsed);
  return parsed;
}

const admin = (path, options) => request(new URL(path, here), options);

// --- notices ---

let noticeTimer;
function notify(text, ok = false) {
  const notice = $('notice');
  notice.textContent = text;
  notice.className = ok ? 'ok' : '';
  notice.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => {
    notice.hidden = true;
  }, 8000);
}

/** Runs an action from a button or form, telling the outcome, then refreshes the state. */
async function act(what, action) {
  try {
    await action();
    notify(`${what}: done`, true);
  } catch (error) {
    notify(`${what} failed: ${error.message}`);
  }
  await refresh();
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function row(cells) {
  const tr = document.createElement('tr');
  for (const cell of cells) {
    const td = document.createElement('td');
    if (cell instanceof Node) td.append(cell);
    else td.textContent = cell;
    tr.append(td);
  }
  return tr;
}

function button(text, onClick, label) {
  const node = el('button', text);
  node.type = 'button';
  if (label) node.setAttribute('aria-label', label);
  node.addEventListener('click', onClick);
  return node;
}

function formatHours(ms) {
  const hours = ms / HOUR_MS;
  const sign = hours > 0 ? '+' : '';
  return `${sign}${Number.isInteger(hours) ? hours : hours.toFixed(2)} h`;
}

function formatDuration(ms) {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h > 0 ? `${h} h ${m} min` : `${m} min`;
}

function clockTime(ms) {
  const d = new Date(ms);
  const pad = (n, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

// --- state: faults, standby, clock, licenses ---

const state = {
  faults: [],
  routes: { main: [], standby: [], idp: [], events: [] },
  scenarios: [],
  /** The scenario this page applied last, while the faults are still exactly its own. */
  drill: undefined,
  standby: undefined,
  clock: undefined,
  licenses: [],
  blocked: [],
  outbox: undefined,
  standbyOutbox: undefined,
  /** The window the usage panel shows: `{ from?, to? }` as ISO strings. */
  usageWindow: {},
};

function describeMode(fault) {
  switch (fault.mode) {
    case 'error':
      return `HTTP ${fault.status ?? 503}${fault.retryAfterSeconds !== undefined ? `, Retry-After ${fault.retryAfterSeconds} s` : ''}`;
    case 'delay':
      return `delay ${fault.delayMs ?? 1000}${fault.jitterMs ? `–${(fault.delayMs ?? 1000) + fault.jitterMs}` : ''} ms`;
    case 'reset':
      return 'connection reset';
    case 'truncate':
      return 'truncated answers';
    case 'captive-portal':
      return 'captive portal page';
    default:
      return 'hang';
  }
}

function describeFault(fault) {
  const when = [];
  if (fault.every !== undefined && fault.every > 1) when.push(`every ${fault.every}th request`);
  if (fault.probability !== undefined && fault.probability < 1) {
    when.push(`p ${fault.probability}, seed ${fault.seed}`);
  }
  return when.length === 0 ? describeMode(fault) : `${describeMode(fault)} (${when.join(', ')})`;
}

/** The faults of one service, as the summary says them. */
function describeServiceFaults(faults) {
  const everywhere = faults.find((f) => f.route === '*');
  if (everywhere) return `${describeFault(everywhere)} on every route`;
  if (faults.length === 1) return `${describeFault(faults[0])} on ${faults[0].route}`;
  return `${faults.length} route faults`;
}

/** Whether `faults` are exactly what `scenario` sets (same service, route and mode each). */
function isScenarioInForce(scenario, faults) {
  const key = (f) => `${f.service ?? 'main'} ${f.route ?? '*'} ${f.mode}`;
  const wanted = scenario.faults.map(key).sort();
  const actual = faults.map(key).sort();
  return wanted.length === actual.length && wanted.every((k, i) => k === actual[i]);
}

function renderFaults(view) {
  state.faults = view.faults;
  state.routes = view.routes;
  renderRouteChoices();
  const body = $('faults');
  body.replaceChildren(
    ...view.faults.map((fault) =>
      row([
        fault.service,
        fault.route,
        describeFault(fault),
        fault.remaining === undefined ? 'until cleared' : String(fault.remaining),
        String(fault.hits),
        String(fault.misses),
        button(
          'Clear',
          () =>
            act(`Clear the ${fault.service} fault on ${fault.route}`, () =>
              admin(`faults?service=${fault.service}&route=${encodeURIComponent(fault.route)}`, {
                method: 'DELETE',
              }),
            ),
          `Clear the ${fault.service} fault on ${fault.route}`,
        ),
      ]),
    ),
  );
  if (view.faults.length === 0) {
    body.append(row(['none: every service answers normally', '', '', '', '', '', '']));
  }
  if (state.drill && !isScenarioInForce(state.drill, view.faults)) state.drill = undefined;
  $('held').textContent =
    `Requests held now: ${view.held.hang} hanging, ${view.held.delay} delayed.`;
}

function renderStandby(view) {
  state.standby = view;
  $('standby-state').textContent = view.state === 'active' ? 'active (serving)' : 'dormant';
  $('standby-pending').textContent = view.pending
    ? `— becoming ${view.pending.state} at ${new Date(view.pending.effectiveAt).toLocaleTimeString()} (server clock)`
    : '';
  const delay = $('propagation-delay');
  if (document.activeElement !== delay) delay.value = String(view.propagationDelayMs);
  $('apikey-header').textContent = view.apiKeyHeader;
  $('signing-keys').replaceChildren(
    ...view.signingKeys.map((key, i) =>
      el(
        'li',
        `${key.keyId}${i === 0 ? ' (default)' : ''} — made ${new Date(key.createdAt).toLocaleString()}`,
        'mono',
      ),
    ),
  );
}

function renderClock(view) {
  state.clock = view;
  $('clock-now').textContent = new Date(view.nowMs).toLocaleString();
  $('clock-offset').textContent = formatHours(view.offsetMs);
  const hours = $('clock-hours');
  if (document.activeElement !== hours) hours.value = String(view.offsetMs / HOUR_MS);
  // A user who signed in at real time now with a 1 h ID token: what each service says of it.
  const graceMs = view.idTokenGraceSeconds.standby * 1000;
  const expiresAt = HOUR_MS; // offsets are measured from real time
  const mainOk = view.offsetMs <= expiresAt + view.idTokenGraceSeconds.main * 1000;
  const standbyLeft = expiresAt + graceMs - view.offsetMs;
  $('grace').textContent =
    `ID tokens: main accepts one until it expires; the standby ${formatDuration(graceMs)} longer (the grace). ` +
    `A 1 h token issued at real time now is, at this offset: main — ${mainOk ? 'accepted' : 'refused (expired)'}; ` +
    `standby — ${standbyLeft >= 0 ? `accepted (${formatDuration(standbyLeft)} of grace left)` : 'refused (past the grace)'}.`;
}

function feedSuggestions() {
  const names = new Set(['main']);
  for (const license of state.licenses) {
    names.add(`license/${license.licenseId}`);
    names.add(`activationCode/${license.activationCode}`);
  }
  for (const code of state.blocked) names.add(`activationCode/${code.activationCode}`);
  $('feed-suggestions').replaceChildren(
    ...[...names].map((name) => {
      const option = document.createElement('option');
      option.value = name;
      return option;
    }),
  );
}

function renderLicenses(licenses, blocked, outbox) {
  state.licenses = licenses;
  state.blocked = blocked;
  state.outbox = outbox;
  const blockedCodes = new Set(blocked.map((b) => b.activationCode));
  const body = $('licenses');
  body.replaceChildren(
    ...licenses.map((license) => {
      const code = license.activationCode;
      const status = el(
        'span',
        license.live ? 'live' : 'not live: code blocked',
        license.live ? 'status-ok' : 'status-bad',
      );
      const actions = el('span');
      actions.className = 'buttons';
      actions.append(
        button(
          'Revoke',
          () =>
            act(`Revoke license ${license.licenseId}`, () =>
              admin(`main/licenses/${encodeURIComponent(license.licenseId)}`, {
                method: 'DELETE',
              }),
            ),
          `Revoke the license of ${license.sub} for ${license.item}`,
        ),
        blockedCodes.has(code)
          ? button(
              'Unblock code',
              () =>
                act(`Unblock ${code}`, () =>
                  admin(`main/activation-codes/${encodeURIComponent(code)}/unblock`, {
                    method: 'POST',
                  }),
                ),
              `Unblock activation code ${code}`,
            )
          : button(
              'Block code',
              () =>
                act(`Block ${code}`, () =>
                  admin(`main/activation-codes/${encodeURIComponent(code)}/block`, {
                    method: 'POST',
                  }),
                ),
              `Block activation code ${code}`,
            ),
      );
      return row([
        el('span', license.licenseId, 'mono'),
        license.sub,
        license.item,
        code,
        status,
        actions,
      ]);
    }),
  );
  if (licenses.length === 0) body.append(row(['none provisioned', '', '', '', '', '']));
  $('blocked-codes').textContent =
    blocked.length === 0 ? 'none' : blocked.map((b) => b.activationCode).join(', ');
  $('outbox').textContent =
    `${outbox.pending} change${outbox.pending === 1 ? '' : 's'} waiting` +
    (outbox.paused ? ' — deliveries HELD' : ' — delivering');
  $('outbox-toggle').textContent = outbox.paused
    ? 'Let event deliveries go'
    : 'Hold event deliveries';
  feedSuggestions();
}

// --- what the standby granted ---

/** A `datetime-local` value (local time) as ISO 8601, or undefined when empty. */
function isoOf(value) {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function usagePath() {
  const params = new URLSearchParams();
  const { from, to } = state.usageWindow;
  if (from) params.set('from', from);
  if (to) params.set('to', to);
  const query = params.toString();
  return `standby/usage${query ? `?${query}` : ''}`;
}

function renderUsage(view, outbox) {
  state.standbyOutbox = outbox;
  const body = $('usage-rows');
  const date = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
  body.replaceChildren(
    ...view.rows.map((r) => {
      const tr = row([
        el('span', r.consumer, 'mono'),
        r.item === '' ? el('span', '(unknown item)', 'hint') : r.item,
        String(r.granted),
        String(r.renewed),
        String(r.released),
        date(r.firstGrant),
        date(r.lastExp),
        r.leaseHours.toFixed(2),
        String(r.devices),
        String(r.graceGrants),
      ]);
      for (const i of [2, 3, 4, 7, 8, 9]) tr.cells[i].classList.add('num');
      tr.dataset.consumer = r.consumer;
      tr.dataset.item = r.item;
      return tr;
    }),
  );
  if (view.rows.length === 0) {
    body.append(
      row(['no lease from the standby in this window', '', '', '', '', '', '', '', '', '']),
    );
  }
  const { from, to } = state.usageWindow;
  const window =
    from || to
      ? `received ${from ? `from ${new Date(from).toLocaleString()}` : ''}${from && to ? ' ' : ''}${to ? `before ${new Date(to).toLocaleString()}` : ''}`
      : 'received so far';
  $('usage-state').textContent =
    `${view.events} event${view.events === 1 ? '' : 's'} ${window}` +
    (view.waiting > 0
      ? ` · ${view.waiting} more still in the standby's outbox (not counted yet)`
      : '');
  $('standby-outbox').textContent =
    `${outbox.pendingEvents} event${outbox.pendingEvents === 1 ? '' : 's'} waiting` +
    (outbox.paused ? ' — deliveries HELD' : ' — delivering');
  $('standby-outbox-toggle').textContent = outbox.paused
    ? "Let the standby's event deliveries go"
    : "Hold the standby's event deliveries";
}

function renderSummary() {
  const parts = [];
  const { faults, standby, clock, drill } = state;
  const of = (service) => faults.filter((f) => f.service === service);
  if (drill) parts.push(`Drill: ${drill.name}`);
  const main = of('main');
  parts.push(main.length === 0 ? 'Main: healthy' : `Main: BROKEN (${describeServiceFaults(main)})`);
  if (standby) {
    const broken = of('standby');
    parts.push(
      `Standby: ${standby.state}${standby.pending ? ` (→ ${standby.pending.state} pending)` : ''}` +
        (broken.length === 0 ? '' : `, FAULT (${describeServiceFaults(broken)})`),
    );
  }
  for (const service of ['idp', 'events']) {
    const broken = of(service);
    if (broken.length > 0) {
      parts.push(`${SERVICE_NAMES[service]}: BROKEN (${describeServiceFaults(broken)})`);
    }
  }
  if (clock)
    parts.push(`Clock: ${clock.offsetMs === 0 ? 'real time' : formatHours(clock.offsetMs)}`);
  const text = parts.join(' · ');
  if ($('summary').textContent !== text) $('summary').textContent = text;
}

let refreshing;
async function refresh() {
  if (refreshing) return refreshing;
  refreshing = (async () => {
    try {
      const [faults, standby, clock, licenses, blocked, outbox, usage, standbyOutbox] =
        await Promise.all([
          admin('faults'),
          admin('standby'),
          admin('clock'),
          admin('main/licenses'),
          admin('main/activation-codes'),
          admin('main/outbox'),
          admin(usagePath()),
          admin('standby/outbox'),
        ]);
      renderFaults(faults);
      renderStandby(standby);
      renderClock(clock);
      renderLicenses(licenses, blocked, outbox);
      renderUsage(usage, standbyOutbox);
      renderSummary();
    } catch (error) {
      $('summary').textContent = `The admin API does not answer: ${error.message}`;
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

// --- scenarios ---

function renderScenarios(list) {
  state.scenarios = list.scenarios;
  const select = $('scenario');
  const chosen = select.value;
  select.replaceChildren(
    el('option', 'choose a drill…'),
    ...list.scenarios.map((scenario) => {
      const option = el('option', scenario.name);
      option.value = scenario.name;
      return option;
    }),
  );
  select.firstElementChild.value = '';
  if (list.scenarios.some((s) => s.name === chosen)) select.value = chosen;
  describeChosenScenario();
}

function describeChosenScenario() {
  const scenario = state.scenarios.find((s) => s.name === $('scenario').value);
  $('scenario-description').textContent = scenario
    ? `${scenario.description} Faults: ${scenario.faults
        .map((f) => `${f.service ?? 'main'} ${f.route ?? '*'} → ${describeFault(f)}`)
        .join('; ')}.`
    : 'A named drill sets its faults (the same names as the testing kit’s scenarioNames).';
}

/** One drill at a time: every fault is cleared, then the scenario's are set. */
async function applyScenario(name) {
  await admin('faults', { method: 'DELETE' });
  await admin(`scenarios/${encodeURIComponent(name)}`, { method: 'POST' });
  state.drill = state.scenarios.find((s) => s.name === name);
}

// --- fault form ---

function renderRouteChoices() {
  const select = $('fault-route');
  const service = $('fault-service').value;
  const routes = state.routes[service] ?? [];
  const current = [...select.options].map((o) => o.value).join('\n');
  const next = ['*', ...routes].join('\n');
  if (current === next) return;
  const chosen = select.value;
  select.replaceChildren(
    ...['*', ...routes].map((route) => {
      const option = el('option', route === '*' ? 'every route of the service (*)' : route);
      option.value = route;
      return option;
    }),
  );
  if (routes.includes(chosen)) select.value = chosen;
}

function faultFromForm() {
  const [mode, status] = $('fault-mode').value.split(/-(?=\d)/);
  const body = { service: $('fault-service').value, route: $('fault-route').value, mode };
  const number = (id) => ($(id).value === '' ? undefined : Number($(id).value));
  if (status) body.status = Number(status);
  if (mode === 'delay') {
    body.delayMs = number('fault-delay') ?? 1000;
    if (number('fault-jitter') !== undefined) body.jitterMs = number('fault-jitter');
  }
  if (mode === 'error' && number('fault-retry-after') !== undefined) {
    body.retryAfterSeconds = number('fault-retry-after');
  }
  for (const [name, id] of [
    ['count', 'fault-count'],
    ['every', 'fault-every'],
    ['probability', 'fault-probability'],
  ]) {
    if (number(id) !== undefined) body[name] = number(id);
  }
  // A seed drives the draws: it goes with a probability or a jitter, else it means nothing.
  if (number('fault-seed') !== undefined && (body.probability !== undefined || body.jitterMs)) {
    body.seed = number('fault-seed');
  }
  return body;
}

// --- actions ---

const breakMain = () => admin('faults', { method: 'POST', body: { mode: 'error', status: 503 } });
const restoreMain = () => admin('faults', { method: 'DELETE' });
const setOffset = (offsetMs) => admin('clock', { method: 'PUT', body: { offsetMs } });
const advance = (advanceMs) => admin('clock', { method: 'PUT', body: { advanceMs } });

function apiKeyHeaders() {
  const key = $('apikey').value;
  if (key === '') throw new Error('type the management API key first (the start line prints it)');
  sessionStorage.setItem('standby-apikey', key);
  return { [state.standby?.apiKeyHeader ?? 'Service-ApiKey']: key };
}
const standbyApi = (path, method) =>
  request(new URL(`standby/${path}`, root), { method, headers: apiKeyHeaders() });

function wire() {
  $('break-main').addEventListener('click', () => act('Break main', breakMain));
  $('restore-main').addEventListener('click', () => act('Restore main', restoreMain));
  // 1 h past the grace of a 1 h token signed in now: 1 h + 24 h + 1 h.
  $('clock-past-grace').addEventListener('click', () =>
    act('Clock +26 h', () => advance(26 * HOUR_MS)),
  );
  $('clock-reset').addEventListener('click', () =>
    act('Clock back to real time', () => setOffset(0)),
  );
  $('clock-zero').addEventListener('click', () =>
    act('Reset the clock offset', () => setOffset(0)),
  );
  for (const node of document.querySelectorAll('[data-advance-hours]')) {
    const hours = Number(node.getAttribute('data-advance-hours'));
    node.addEventListener('click', () => act(`Clock +${hours} h`, () => advance(hours * HOUR_MS)));
  }
  $('clock-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const hours = Number($('clock-hours').value);
    act('Set the clock offset', () => setOffset(Math.round(hours * HOUR_MS)));
  });

  $('fault-service').addEventListener('change', renderRouteChoices);
  $('fault-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const body = faultFromForm();
    act(`Inject ${describeFault(body)} on ${body.service} ${body.route}`, () =>
      admin('faults', { method: 'POST', body }),
    );
  });

  $('scenario').addEventListener('change', describeChosenScenario);
  $('scenario-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const name = $('scenario').value;
    if (name === '') return;
    act(`Scenario ${name}`, () => applyScenario(name));
  });
  $('scenario-end').addEventListener('click', () =>
    act('End the drill', async () => {
      await admin('faults', { method: 'DELETE' });
      state.drill = undefined;
    }),
  );

  const enable = () => act('Enable the standby', () => standbyApi('enabled', 'PUT'));
  const disable = () => act('Disable the standby', () => standbyApi('disabled', 'PUT'));
  $('standby-enable').addEventListener('click', enable);
  $('standby-disable').addEventListener('click', disable);
  $('standby-enable-quick').addEventListener('click', enable);
  $('standby-disable-quick').addEventListener('click', disable);
  $('rotate-key').addEventListener('click', () =>
    act('Rotate the standby signing key', async () => {
      const created = await standbyApi('signing-keys', 'POST');
      notify(`New signing key ${created.keyId}`, true);
    }),
  );
  $('apikey').value = sessionStorage.getItem('standby-apikey') ?? '';
  $('apikey-form').addEventListener('submit', (event) => event.preventDefault());
  $('delay-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act('Set the propagation delay', () =>
      admin('standby/propagation-delay', {
        method: 'PUT',
        body: { propagationDelayMs: Number($('propagation-delay').value) },
      }),
    );
  });

  $('provision-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const body = { sub: $('provision-sub').value, item: $('provision-item').value };
    const code = $('provision-code').value.trim();
    if (code !== '') body.activationCode = code;
    act(`Provision ${body.item} for ${body.sub}`, async () => {
      const license = await admin('main/licenses', { method: 'POST', body });
      $('provision-code').value = '';
      return license;
    });
  });
  $('outbox-toggle').addEventListener('click', () => {
    const paused = !(state.outbox?.paused ?? false);
    act(paused ? 'Hold main event deliveries' : 'Let main event deliveries go', () =>
      admin('main/outbox', { method: 'PUT', body: { paused } }),
    );
  });

  $('usage-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const from = isoOf($('usage-from').value);
    const to = isoOf($('usage-to').value);
    if (from && to && from >= to) {
      notify('The window must start before it ends');
      return;
    }
    state.usageWindow = { ...(from ? { from } : {}), ...(to ? { to } : {}) };
    refresh();
  });
  $('usage-all').addEventListener('click', () => {
    $('usage-from').value = '';
    $('usage-to').value = '';
    state.usageWindow = {};
    refresh();
  });
  $('standby-outbox-toggle').addEventListener('click', () => {
    const paused = !(state.standbyOutbox?.paused ?? false);
    act(paused ? 'Hold standby event deliveries' : 'Let standby event deliveries go', () =>
      admin('standby/outbox', { method: 'PUT', body: { paused } }),
    );
  });

  wireLog();
  wireFeeds();
}

// --- live request log (server-sent events) ---

const log = { entries: [], paused: false, dropped: 0 };

function answerText(entry) {
  if (entry.status === null) return OUTCOMES[entry.outcome] ?? 'no answer';
  const text = `${entry.status} ${REASONS[entry.status] ?? ''}`.trim();
  return entry.outcome === 'truncated' ? `${text}, body cut off` : text;
}

function answerClass(entry) {
  if (entry.status === null || entry.status >= 500 || entry.outcome) return 'status-bad';
  if (entry.status >= 400) return 'status-warn';
  return 'status-ok';
}

function visible(entry) {
  const service = $('log-filter').value;
  if (service !== '' && entry.service !== service) return false;
  if ($('log-leases-only').checked && entry.servedBy === undefined) return false;
  return true;
}

function logRow(entry) {
  const tr = row([
    clockTime(entry.at),
    entry.service,
    el('span', `${entry.method} ${entry.route}${entry.kind ? ` · ${entry.kind}` : ''}`, 'mono'),
    el('span', answerText(entry), answerClass(entry)),
    `${entry.ms} ms`,
    entry.servedBy ? el('span', `lease from ${entry.servedBy}`, 'badge') : '—',
    [entry.caller, entry.hw].filter(Boolean).join(' · ') || '—',
  ]);
  tr.dataset.service = entry.service;
  if (entry.servedBy) tr.dataset.servedBy = entry.servedBy;
  if (entry.servedBy === 'standby') tr.classList.add('standby');
  tr.cells[4].classList.add('num');
  return tr;
}

function renderLog() {
  const rows = [];
  for (let i = log.entries.length - 1; i >= 0; i--) {
    if (visible(log.entries[i])) rows.push(logRow(log.entries[i]));
  }
  $('log-rows').replaceChildren(...rows);
}

function renderCounts() {
  const since = Date.now() - 60_000;
  const counts = { main: 0, standby: 0, failures: 0 };
  let lastLease;
  for (const entry of log.entries) {
    if (entry.at < since) continue;
    if (entry.servedBy) {
      counts[entry.servedBy]++;
      lastLease = entry;
    }
    if (entry.service === 'main' && (entry.status === null || entry.status >= 500)) {
      counts.failures++;
    }
  }
  $('log-counts').textContent =
    `Last 60 s: ${counts.main} lease answer${counts.main === 1 ? '' : 's'} from main, ` +
    `${counts.standby} from the standby; ${counts.failures} main request${counts.failures === 1 ? '' : 's'} failed.` +
    (lastLease ? ` Last lease: from ${lastLease.servedBy} at ${clockTime(lastLease.at)}.` : '') +
    (log.dropped > 0
      ? ` ${log.dropped} entries dropped (the server kept going without this view).`
      : '');
}

function addEntry(entry) {
  log.entries.push(entry);
  if (log.entries.length > MAX_LOG_ROWS) log.entries.shift();
  if (log.paused || !visible(entry)) return;
  const rows = $('log-rows');
  rows.prepend(logRow(entry));
  while (rows.rows.length > MAX_LOG_ROWS) rows.lastElementChild.remove();
}

function wireLog() {
  const source = new EventSource(new URL('requests/stream', here));
  const stateText = $('stream-state');
  source.addEventListener('open', () => {
    stateText.textContent = 'connected (live)';
  });
  source.addEventListener('error', () => {
    stateText.textContent = source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting…';
  });
  source.addEventListener('request', (event) => addEntry(JSON.parse(event.data)));
  source.addEventListener('dropped', (event) => {
    log.dropped += JSON.parse(event.data).count;
  });
  setInterval(renderCounts, 500);
  window.addEventListener('pagehide', () => source.close());

  $('log-filter').addEventListener('change', renderLog);
  $('log-leases-only').addEventListener('change', renderLog);
  $('log-pause').addEventListener('click', (event) => {
    log.paused = !log.paused;
    event.currentTarget.setAttribute('aria-pressed', String(log.paused));
    event.currentTarget.textContent = log.paused ? 'Resume view' : 'Pause view';
    if (!log.paused) renderLog();
  });
  $('log-clear').addEventListener('click', () => {
    log.entries = [];
    log.dropped = 0;
    renderLog();
    renderCounts();
  });
}

// --- event feeds ---

const feed = { name: '', older: undefined, follow: undefined, token: undefined, count: 0 };

async function readToken(refresh = false) {
  const given = $('feed-token').value.trim();
  if (given !== '') return given;
  if (!refresh && feed.token && feed.token.renewAt > Date.now()) return feed.token.value;
  const minted = await request(new URL('idp/token', root), {
    method: 'POST',
    body: { sub: 'qa-console', expiresInSeconds: 3600, claims: { '*': true } },
  });
  feed.token = { value: minted.id_token, renewAt: Date.now() + 10 * 60_000 };
  return minted.id_token;
}

async function readFeed(relative, signal) {
  const url = new URL(`events/get/${relative}`, root);
  for (let attempt = 0; ; attempt++) {
    const token = await readToken(attempt > 0);
    try {
      return await request(url, { headers: { Authorization: `Bearer ${token}` }, signal });
    } catch (error) {
      // A token minted before a clock jump may have expired on the server clock: mint again.
      if (error.status === 401 && attempt === 0 && $('feed-token').value.trim() === '') continue;
      throw error;
    }
  }
}

function feedPath(name) {
  return name.split('/').map(encodeURIComponent).join('/');
}

function eventRow(event) {
  const object = event.eventObjectType ? `${event.eventObjectType}/${event.eventObjectId}` : '—';
  return row([
    new Date(Number(BigInt(event.eventReceived_str) / 1_000_000n)).toLocaleString(),
    event.eventType,
    el('span', object, 'mono'),
    el('span', JSON.stringify(event.data ?? null), 'mono'),
  ]);
}

function splitPage(page) {
  const objects = page.objects;
  return {
    older: objects[0],
    newer: objects[objects.length - 1],
    events: objects.slice(1, -1),
  };
}

function showFeedState() {
  $('feed-state').textContent =
    `${feed.count} event${feed.count === 1 ? '' : 's'} shown from ${feed.name}` +
    (feed.follow ? '; following: new events appear at the top.' : '.');
}

function stopFollowing() {
  feed.follow?.abort();
  feed.follow = undefined;
}

async function follow(name, newerUrl) {
  stopFollowing();
  const controller = new AbortController();
  feed.follow = controller;
  showFeedState();
  let next = newerUrl;
  while (!controller.signal.aborted) {
    try {
      const page = await readFeed(`${next}&maxWaitMs=25000`, controller.signal);
      const { events, newer } = splitPage(page);
      next = newer.url;
      const rows = $('feed-rows');
      for (const event of events) rows.prepend(eventRow(event));
      while (rows.rows.length > MAX_FEED_ROWS) rows.lastElementChild.remove();
      feed.count = Math.min(MAX_FEED_ROWS, feed.count + events.length);
      showFeedState();
    } catch (error) {
      if (controller.signal.aborted) return;
      $('feed-state').textContent = `Following ${name} failed: ${error.message}; retrying in 3 s.`;
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  }
}

async function openFeed() {
  stopFollowing();
  const name = $('feed-name').value.trim();
  feed.name = name;
  feed.count = 0;
  $('feed-rows').replaceChildren();
  try {
    const page = await readFeed(`${feedPath(name)}?maxEventCount=50`);
    const { events, older, newer } = splitPage(page);
    $('feed-rows').replaceChildren(...events.reverse().map(eventRow));
    feed.count = events.length;
    feed.older = older.count > 0 ? older.url : undefined;
    $('feed-older').disabled = feed.older === undefined;
    showFeedState();
    if ($('feed-follow').checked) follow(name, newer.url);
  } catch (error) {
    $('feed-state').textContent = `Reading ${name} failed: ${error.message}`;
  }
}

async function readOlder() {
  if (!feed.older) return;
  try {
    const page = await readFeed(`${feed.older}&maxEventCount=50`);
    const { events, older } = splitPage(page);
    $('feed-rows').append(...events.reverse().map(eventRow));
    feed.count += events.length;
    feed.older = older.count > 0 ? older.url : undefined;
    $('feed-older').disabled = feed.older === undefined;
    showFeedState();
  } catch (error) {
    $('feed-state').textContent = `Reading older events failed: ${error.message}`;
  }
}

function wireFeeds() {
  $('feed-form').addEventListener('submit', (event) => {
    event.preventDefault();
    openFeed();
  });
  $('feed-older').addEventListener('click', readOlder);
  $('feed-follow').addEventListener('change', () => {
    if (!$('feed-follow').checked) {
      stopFollowing();
      showFeedState();
    } else if (feed.name !== '') {
      openFeed();
    }
  });
}

wire();
refresh();
admin('scenarios').then(renderScenarios, (error) => {
  $('scenario-description').textContent = `The scenarios did not load: ${error.message}`;
});
setInterval(refresh, REFRESH_MS);
// Show the main feed from the start (read once; tick "follow" to keep it live).
openFeed();

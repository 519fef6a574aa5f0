// The drill's timeline as an SVG: requests/s on main and the standby, apps per lease holder and,
// when given, CPU, over time, with the phase boundaries marked. Hand-written SVG (decision 0017).

/** One line of a panel. */
export interface ChartLine {
  label: string;
  /** CSS colour. */
  color: string;
  /** One value per step. */
  values: readonly number[];
  /** Dashed line. Default false. */
  dashed?: boolean;
}

/** One panel: a y axis and its lines. */
export interface ChartPanel {
  title: string;
  lines: readonly ChartLine[];
  /** Height of the plot area, px. Default 180. */
  height?: number;
}

/** A vertical marker, e.g. "main breaks". */
export interface ChartMark {
  atMs: number;
  label: string;
}

/** What {@link renderTimelineChart} draws. */
export interface TimelineChart {
  title: string;
  /** A second line under the title (options, figures). */
  subtitle?: string;
  /** Time between two values of a line, ms. */
  stepMs: number;
  panels: readonly ChartPanel[];
  marks: readonly ChartMark[];
}

const WIDTH = 960;
const LEFT = 64;
const RIGHT = 150;
const PANEL_GAP = 44;
const TOP = 76;
const BOTTOM = 40;
const FONT = 'font-family="system-ui, sans-serif"';

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A round step (1, 2 or 5 times a power of ten) giving about `count` ticks up to `max`. */
function niceStep(max: number, count: number): number {
  if (max <= 0) return 1;
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

function formatTick(value: number): string {
  if (value >= 10_000) return `${+(value / 1000).toFixed(1)}k`;
  return String(+value.toFixed(2));
}

/** Keeps every point where a line changes direction or level, so flat stretches cost nothing. */
function pointsOf(values: readonly number[], x: (i: number) => number, y: (v: number) => number) {
  const points: string[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (i > 0 && i < values.length - 1 && values[i - 1] === v && values[i + 1] === v) continue;
    points.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  }
  return points.join(' ');
}

/**
 * Renders the timeline as a standalone SVG document: one panel per entry of `panels` stacked
 * under a shared time axis (seconds from the run's start), each with its own y scale from 0, a
 * legend on the right, and a dashed vertical line with a label for each mark.
 *
 * @example
 * const svg = renderTimelineChart({
 *   title: 'Strategy B, main refused, 10 000 clients',
 *   stepMs: 1000,
 *   panels: [{ title: 'requests/s', lines: [{ label: 'main', color: '#1f77b4', values: mainRps }] }],
 *   marks: [{ atMs: 120_000, label: 'main breaks' }],
 * });
 * writeFileSync('timeline.svg', svg);
 */
export function renderTimelineChart(chart: TimelineChart): string {
  const steps = Math.max(1, ...chart.panels.flatMap((p) => p.lines.map((l) => l.values.length)));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const durationS = (steps * chart.stepMs) / 1000;
  const x = (i: number) => LEFT + ((i * chart.stepMs) / 1000 / durationS) * plotWidth;
  const xAt = (ms: number) => LEFT + (ms / 1000 / durationS) * plotWidth;
  const heights = chart.panels.map((p) => p.height ?? 180);
  const height =
    TOP + heights.reduce((a, b) => a + b, 0) + PANEL_GAP * chart.panels.length + BOTTOM;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img">`,
    // The accessible name of the chart (screen readers, and the tooltip of a browser).
    `<title>${escapeXml(chart.subtitle ? `${chart.title}: ${chart.subtitle}` : chart.title)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="24" ${FONT} font-size="16" font-weight="600">${escapeXml(chart.title)}</text>`,
  ];
  if (chart.subtitle) {
    out.push(
      `<text x="${LEFT}" y="44" ${FONT} font-size="12" fill="#444">${escapeXml(chart.subtitle)}</text>`,
    );
  }
  let top = TOP;
  chart.panels.forEach((panel, p) => {
    const h = heights[p]!;
    const bottom = top + h;
    const max = Math.max(0, ...panel.lines.flatMap((l) => l.values));
    const step = niceStep(max, 4);
    const yMax = Math.max(step, Math.ceil(max / step) * step);
    const y = (v: number) => bottom - (v / yMax) * h;
    out.push(`<g class="panel">`);
    out.push(
      `<text x="${LEFT}" y="${top - 8}" ${FONT} font-size="12" font-weight="600">${escapeXml(panel.title)}</text>`,
    );
    for (let v = 0; v <= yMax + step / 2; v += step) {
      out.push(
        `<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e5e5"/>`,
      );
      out.push(
        `<text x="${LEFT - 6}" y="${(y(v) + 4).toFixed(1)}" ${FONT} font-size="11" text-anchor="end" fill="#555">${formatTick(v)}</text>`,
      );
    }
    out.push(
      `<rect x="${LEFT}" y="${top}" width="${plotWidth}" height="${h}" fill="none" stroke="#999"/>`,
    );
    panel.lines.forEach((line, l) => {
      const dash = line.dashed ? ' stroke-dasharray="5 3"' : '';
      out.push(
        `<polyline class="series" data-label="${escapeXml(line.label)}" fill="none" stroke="${line.color}" stroke-width="1.5"${dash} points="${pointsOf(line.values, x, y)}"/>`,
      );
      const ly = top + 14 + l * 18;
      out.push(
        `<line x1="${LEFT + plotWidth + 12}" x2="${LEFT + plotWidth + 32}" y1="${ly - 4}" y2="${ly - 4}" stroke="${line.color}" stroke-width="2"${dash}/>`,
      );
      out.push(
        `<text x="${LEFT + plotWidth + 38}" y="${ly}" ${FONT} font-size="11">${escapeXml(line.label)}</text>`,
      );
    });
    for (const mark of chart.marks) {
      const mx = xAt(mark.atMs).toFixed(1);
      out.push(
        `<line class="mark" x1="${mx}" x2="${mx}" y1="${top}" y2="${bottom}" stroke="#333" stroke-dasharray="3 3"/>`,
      );
    }
    out.push('</g>');
    top = bottom + PANEL_GAP;
  });
  // Mark labels once, inside the top of the first panel, on alternate rows so that close marks
  // do not overlap, with a white halo over the lines.
  chart.marks.forEach((mark, i) => {
    const mx = xAt(mark.atMs);
    // About 5.6 px per character at 10 px: a label that would run into the legend goes left.
    const left = mx + 3 + mark.label.length * 5.6 > LEFT + plotWidth;
    const anchor = left ? ' text-anchor="end"' : '';
    out.push(
      `<text class="mark-label" x="${(left ? mx - 3 : mx + 3).toFixed(1)}" y="${TOP + 12 + (i % 2) * 13}"${anchor} ${FONT} font-size="10" fill="#333" stroke="#fff" stroke-width="3" paint-order="stroke">${escapeXml(mark.label)}</text>`,
    );
  });
  const axisY = top - PANEL_GAP;
  const tick = niceStep(durationS, 10);
  for (let s = 0; s <= durationS + 1e-9; s += tick) {
    const tx = (LEFT + (s / durationS) * plotWidth).toFixed(1);
    out.push(`<line x1="${tx}" x2="${tx}" y1="${axisY}" y2="${axisY + 4}" stroke="#555"/>`);
    out.push(
      `<text x="${tx}" y="${axisY + 16}" ${FONT} font-size="11" text-anchor="middle" fill="#555">${formatTick(s)}</text>`,
    );
  }
  out.push(
    `<text x="${LEFT + plotWidth / 2}" y="${axisY + 32}" ${FONT} font-size="11" text-anchor="middle" fill="#555">seconds from the start of the run</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

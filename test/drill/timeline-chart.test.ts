import { describe, expect, it } from 'vitest';
import { renderTimelineChart, type TimelineChart } from './timeline-chart.js';

const chart: TimelineChart = {
  title: 'Strategy B <refused> & co',
  subtitle: '4 clients',
  stepMs: 1000,
  panels: [
    {
      title: 'requests/s',
      lines: [
        { label: 'main', color: '#1f77b4', values: [10, 10, 10, 0, 0, 0, 20, 10, 10, 10] },
        { label: 'standby', color: '#ff7f0e', values: [0, 0, 0, 0, 8, 8, 2, 0, 0, 0] },
      ],
    },
    {
      title: 'apps by lease holder',
      height: 100,
      lines: [
        {
          label: 'on main',
          color: '#1f77b4',
          values: [4, 4, 4, 4, 0, 0, 2, 4, 4, 4],
          dashed: true,
        },
      ],
    },
  ],
  marks: [
    { atMs: 3000, label: 'main breaks' },
    { atMs: 6000, label: 'main recovers' },
  ],
};

/** The [x, y] points of the polyline labelled `label`. */
function points(svg: string, label: string): Array<[number, number]> {
  const match = new RegExp(`data-label="${label}"[^>]*points="([^"]*)"`).exec(svg);
  if (!match) throw new Error(`no polyline ${label}`);
  return match[1]!.split(' ').map((p) => p.split(',').map(Number) as [number, number]);
}

describe('renderTimelineChart', () => {
  const svg = renderTimelineChart(chart);

  it('is one SVG document with a polyline and a legend entry per line, text escaped', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('<title>Strategy B &#60;refused&#62; &#38; co: 4 clients</title>');
    expect(svg.match(/<polyline /g)).toHaveLength(3);
    expect(svg).toContain('Strategy B &#60;refused&#62; &#38; co');
    expect(svg).not.toContain('<refused>');
    for (const label of ['requests/s', 'apps by lease holder', 'main breaks', 'main recovers']) {
      expect(svg).toContain(label);
    }
    expect(svg).toContain('stroke-dasharray="5 3"');
  });

  it('scales each panel from 0 to a round maximum and time across the width', () => {
    const main = points(svg, 'main');
    // Flat stretches keep only their ends: 0,2 (10) 3,5 (0) 6 (20) 7,9 (10).
    expect(main).toHaveLength(7);
    const ys = main.map(([, y]) => y);
    const top = Math.min(...ys);
    const bottom = Math.max(...ys);
    // 20 is the largest value and the axis tops out at 20: it sits at the panel's top edge.
    expect(ys[4]).toBe(top);
    expect(bottom - top).toBe(180);
    // 10 is halfway.
    expect(ys[0]).toBeCloseTo((top + bottom) / 2, 1);
    const xs = main.map(([x]) => x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    const standby = points(svg, 'standby');
    expect(standby[0]![1]).toBe(bottom);
  });

  it('draws each mark in every panel at its time', () => {
    const marks = [...svg.matchAll(/class="mark" x1="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(marks).toHaveLength(4);
    const [breaks, recovers] = marks;
    const main = points(svg, 'main');
    // Step 3 (3 s) and step 6 (6 s) are where the main line has points.
    expect(breaks).toBeCloseTo(main[2]![0], 1);
    expect(recovers).toBeCloseTo(main[4]![0], 1);
  });
});

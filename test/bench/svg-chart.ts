/**
 * A horizontal bar chart as a standalone SVG: one bar per row, its value printed at the end,
 * an optional tick per row for a reference value, and a dashed line for the floor.
 */

export interface Bar {
  label: string;
  value: number;
  /** e.g. "#4c78a8"; rows of one kind share a colour. */
  color: string;
  /** A reference value drawn as a tick across the bar (node-oidc-provider's figure). */
  reference?: number | undefined;
}

export interface ChartOptions {
  title: string;
  subtitle: string;
  unit: string;
  bars: readonly Bar[];
  /** A dashed vertical line, e.g. the bare-Koa floor. */
  marker?: { value: number; label: string } | undefined;
  legend?: ReadonlyArray<{ color: string; label: string; tick?: boolean }>;
}

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** 1, 2 or 5 times a power of ten, so that about five ticks cover `max`. */
function tickStep(max: number): number {
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough) ?? power * 10;
}

const thousands = (n: number): string => Math.round(n).toLocaleString('en-US');

export function barChart({ title, subtitle, unit, bars, marker, legend = [] }: ChartOptions): string {
  const font = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';
  // About 7 px per character at 13 px; room for the longest label.
  const labelWidth = Math.max(160, Math.ceil(Math.max(...bars.map((b) => b.label.length)) * 7.2) + 24);
  const plotWidth = 520;
  const valueRoom = 90;
  const rowHeight = 28;
  const top = 64;
  const width = labelWidth + plotWidth + valueRoom;
  const max = Math.max(1, ...bars.map((b) => Math.max(b.value, b.reference ?? 0)), marker?.value ?? 0);
  const step = tickStep(max);
  const axisMax = Math.ceil(max / step) * step;
  const x = (v: number): number => labelWidth + (v / axisMax) * plotWidth;
  const plotBottom = top + bars.length * rowHeight;
  const height = plotBottom + 44 + (legend.length ? 24 : 0);

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${font} font-size="13">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="16" y="26" font-size="17" font-weight="600" fill="#222">${escape(title)}</text>`,
    `<text x="16" y="46" fill="#666">${escape(subtitle)}</text>`,
  ];
  for (let v = 0; v <= axisMax; v += step) {
    out.push(
      `<line x1="${x(v)}" y1="${top - 6}" x2="${x(v)}" y2="${plotBottom}" stroke="#e5e5e5"/>`,
      `<text x="${x(v)}" y="${plotBottom + 16}" text-anchor="middle" fill="#666" font-size="11">${thousands(v)}</text>`,
    );
  }
  out.push(`<text x="${labelWidth + plotWidth / 2}" y="${plotBottom + 34}" text-anchor="middle" fill="#444">${escape(unit)}</text>`);
  bars.forEach((bar, i) => {
    const y = top + i * rowHeight;
    const barHeight = rowHeight - 8;
    out.push(
      `<text x="${labelWidth - 10}" y="${y + barHeight / 2 + 4}" text-anchor="end" fill="#222">${escape(bar.label)}</text>`,
      `<rect x="${labelWidth}" y="${y}" width="${Math.max(x(bar.value) - labelWidth, 1).toFixed(1)}" height="${barHeight}" fill="${bar.color}" rx="2"/>`,
      `<text x="${(x(bar.value) + 6).toFixed(1)}" y="${y + barHeight / 2 + 4}" fill="#222">${thousands(bar.value)}</text>`,
    );
    if (bar.reference !== undefined) {
      const rx = x(bar.reference).toFixed(1);
      out.push(`<line x1="${rx}" y1="${y - 2}" x2="${rx}" y2="${y + barHeight + 2}" stroke="#222" stroke-width="2"/>`);
    }
  });
  if (marker) {
    const mx = x(marker.value).toFixed(1);
    out.push(
      `<line x1="${mx}" y1="${top - 8}" x2="${mx}" y2="${plotBottom}" stroke="#888" stroke-dasharray="4 3"/>`,
      `<text x="${mx}" y="${top - 12}" text-anchor="middle" fill="#666" font-size="11">${escape(marker.label)}</text>`,
    );
  }
  let lx = 16;
  for (const item of legend) {
    const ly = plotBottom + 56;
    out.push(
      item.tick
        ? `<line x1="${lx + 6}" y1="${ly - 10}" x2="${lx + 6}" y2="${ly + 2}" stroke="#222" stroke-width="2"/>`
        : `<rect x="${lx}" y="${ly - 10}" width="12" height="12" fill="${item.color}" rx="2"/>`,
      `<text x="${lx + 18}" y="${ly}" fill="#444" font-size="12">${escape(item.label)}</text>`,
    );
    lx += 30 + item.label.length * 6.6;
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

// Hand-drawn SVG charts: a bar chart of duplicates by type and a histogram of
// pair scores with the decision boundaries. Both scale to their container
// (viewBox) and carry a text summary for screen readers.

const SVG = "http://www.w3.org/2000/svg";

function node(name, attributes = {}, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

function chart(width, height, summary) {
  const svg = node("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": summary });
  svg.append(node("title", {}, summary));
  return svg;
}

/** Horizontal bars: items [{label, value, kind}] (kind names the colour class). */
export function drawBars(container, items) {
  const row = 28;
  const labelWidth = 110;
  const width = 420;
  const height = items.length * row + 8;
  const max = Math.max(1, ...items.map((i) => i.value));
  const svg = chart(width, height, items.map((i) => `${i.label}: ${i.value}`).join(", "));
  items.forEach((item, k) => {
    const y = 4 + k * row;
    const length = ((width - labelWidth - 50) * item.value) / max;
    svg.append(
      node("text", { x: labelWidth - 8, y: y + row / 2 + 5, "text-anchor": "end", class: "axis" }, item.label),
      node("rect", { x: labelWidth, y: y + 4, width: Math.max(length, 1), height: row - 8, class: `bar ${item.kind}`, rx: 3 }),
      node("text", { x: labelWidth + length + 6, y: y + row / 2 + 5, class: "axis" }, String(item.value)),
    );
  });
  container.replaceChildren(svg);
}

/**
 * Histogram of pair scores in [0, 1], pairs in one cluster stacked on pairs
 * in different clusters, counts on a log scale (unrelated pairs outnumber
 * duplicates by far); `boundaries` [{at, label}] are drawn as dashed lines.
 */
export function drawHistogram(container, pairs, boundaries, bins = 20) {
  const width = 420;
  const height = 244;
  const left = 40;
  const bottom = 60;
  const top = 30;
  const plotWidth = width - left - 10;
  const plotHeight = height - top - bottom;
  const counts = Array.from({ length: bins }, () => ({ same: 0, other: 0 }));
  for (const { score, same } of pairs) counts[Math.min(bins - 1, Math.floor(score * bins))][same ? "same" : "other"] += 1;
  const peak = Math.max(1, ...counts.map((c) => c.same + c.other));
  const scale = (n) => (n > 0 ? (Math.log10(n + 1) / Math.log10(peak + 1)) * plotHeight : 0);
  const sameTotal = pairs.filter((p) => p.same).length;
  const svg = chart(
    width,
    height,
    `${pairs.length} pairs: ${sameTotal} in one cluster, ${pairs.length - sameTotal} in different clusters; boundaries at ${boundaries
      .map((b) => `${b.label} ${b.at.toFixed(2)}`)
      .join(", ")}`,
  );
  const barWidth = plotWidth / bins;
  counts.forEach((c, k) => {
    const x = left + k * barWidth + 1;
    const otherHeight = scale(c.other + c.same) - scale(c.same);
    const sameHeight = scale(c.same);
    const base = top + plotHeight;
    if (c.same) svg.append(node("rect", { x, y: base - sameHeight, width: barWidth - 2, height: sameHeight, class: "bar same-cluster" }));
    if (c.other) svg.append(node("rect", { x, y: base - sameHeight - otherHeight, width: barWidth - 2, height: otherHeight, class: "bar other-cluster" }));
  });
  // Axes: score ticks every 0.2, counts at powers of ten.
  svg.append(node("line", { x1: left, y1: top + plotHeight, x2: left + plotWidth, y2: top + plotHeight, class: "axis-line" }));
  for (let t = 0; t <= 5; t++) {
    svg.append(node("text", { x: left + (plotWidth * t) / 5, y: top + plotHeight + 14, "text-anchor": "middle", class: "axis" }, (t / 5).toFixed(1)));
  }
  for (let p = 1; p <= peak; p *= 10) {
    svg.append(node("text", { x: left - 4, y: top + plotHeight - scale(p) + 4, "text-anchor": "end", class: "axis" }, String(p)));
  }
  svg.append(node("text", { x: left + plotWidth / 2, y: top + plotHeight + 30, "text-anchor": "middle", class: "axis" }, "similarity (number of pairs on a log scale)"));
  boundaries.forEach((b, k) => {
    const x = left + b.at * plotWidth;
    svg.append(
      node("line", { x1: x, y1: top - 4, x2: x, y2: top + plotHeight, class: "boundary" }),
      node("text", { x, y: 14 + k * 11, "text-anchor": "middle", class: "axis boundary-label" }, `${b.label} ${b.at.toFixed(2)}`),
    );
  });
  const legend = node("g", { transform: `translate(${left}, ${height - 12})` });
  legend.append(
    node("rect", { y: -9, width: 10, height: 10, class: "bar same-cluster" }),
    node("text", { x: 14, class: "axis" }, "same cluster"),
    node("rect", { x: 130, y: -9, width: 10, height: 10, class: "bar other-cluster" }),
    node("text", { x: 144, class: "axis" }, "different clusters"),
  );
  svg.append(legend);
  container.replaceChildren(svg);
}

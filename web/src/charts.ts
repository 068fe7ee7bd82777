import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { el } from "./dom.js";

/** One line of a chart: a label and a y value per x (null = no value at that x). */
export interface Series {
  readonly label: string;
  readonly values: readonly (number | null)[];
}

const COLOURS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4b5563"];

/**
 * A titled line chart over steps (uPlot); `yRange` fixes the y axis (rates: [0, 1]). The container carries `data-chart` (its name) and
 * `data-points` (the number of non-null values drawn), which the browser tests read; a chart with
 * no value says so in words instead of drawing empty axes.
 */
export function lineChart(name: string, title: string, xLabel: string, xs: readonly number[], series: readonly Series[], emptyNote: string, yRange?: readonly [number, number]): HTMLElement {
  const points = series.reduce((total, line) => total + line.values.filter((value) => value !== null && Number.isFinite(value)).length, 0);
  const box = el("section", { class: "chart", "data-chart": name, "data-points": String(points) }, el("h3", {}, title));
  if (points === 0) {
    box.append(el("p", { class: "empty" }, emptyNote));
    return box;
  }
  const plotArea = el("div", { class: "plot" });
  box.append(plotArea);
  const options: uPlot.Options = {
    width: 440,
    height: 200,
    scales: { x: { time: false }, ...(yRange === undefined ? {} : { y: { range: [yRange[0], yRange[1]] as uPlot.Range.MinMax } }) },
    // steps are whole numbers: no tick between two rounds
    axes: [{ label: xLabel, size: 40, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000] }, { size: 50 }],
    series: [
      { label: xLabel },
      ...series.map((line, index) => ({
        label: line.label,
        stroke: COLOURS[index % COLOURS.length] as string,
        width: 2,
        spanGaps: true,
        points: { show: true, size: 6 },
      })),
    ],
    legend: { show: true },
  };
  const data = [xs.slice(), ...series.map((line) => line.values.map((value) => (value === null || !Number.isFinite(value) ? null : value)))] as uPlot.AlignedData;
  // drawn once the element is in the page, so it can take the width of its card
  requestAnimationFrame(() => new uPlot({ ...options, width: Math.max(320, plotArea.clientWidth || 440) }, data, plotArea));
  return box;
}

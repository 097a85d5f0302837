import { build, type Histogram } from 'hdr-histogram-js';

/** Request latencies in microseconds, read back in milliseconds. */
export function latencyHistogram(): Histogram {
  return build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 600_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

export function millis(histogram: Histogram, percentile: number): string {
  return (histogram.getValueAtPercentile(percentile) / 1_000).toFixed(2);
}

import { describe, expect, it } from 'vitest';
import { destinationCluster } from '../../../lib/fleet/destination.js';

const clusters = [
  { name: 'hub', server: 'https://hub.example:6443' },
  { name: 'spoke-a', server: 'https://spoke-a.example:6443/' },
];

describe('destinationCluster', () => {
  it.each([
    {
      name: 'the in-cluster address is the cluster the app lives on',
      dest: { server: 'https://kubernetes.default.svc' },
      want: 'hub',
    },
    { name: 'in-cluster by name is the cluster the app lives on', dest: { name: 'in-cluster' }, want: 'hub' },
    {
      name: 'a server URL finds the fleet cluster, ignoring a trailing slash and case',
      dest: { server: 'HTTPS://spoke-a.example:6443' },
      want: 'spoke-a',
    },
    {
      name: 'a destination name finds the fleet cluster of that name',
      dest: { name: 'spoke-a' },
      want: 'spoke-a',
    },
    {
      name: 'a server outside the fleet is undefined',
      dest: { server: 'https://elsewhere:6443' },
      want: undefined,
    },
    { name: 'no destination is undefined', dest: {}, want: undefined },
  ])('$name', ({ dest, want }) => {
    expect(destinationCluster(dest, 'hub', clusters)).toBe(want);
  });
});

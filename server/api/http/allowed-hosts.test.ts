import { describe, expect, it } from "vitest";
import { hostnameOf, isAllowedHost } from "./allowed-hosts";

describe("allowed hosts", () => {
  it.each([
    ["localhost:3000", "localhost"],
    ["127.0.0.1", "127.0.0.1"],
    ["[::1]:3000", "[::1]"],
    ["Modex.Example.COM:443", "modex.example.com"],
  ])("the name of %j is %j", (host, name) => {
    expect(hostnameOf(host)).toBe(name);
  });

  it.each([
    ["localhost:3000", [], true],
    ["127.0.0.1:4123", [], true],
    ["[::1]:3000", [], true],
    ["evil.example", [], false],
    ["evil.example:3000", [], false],
    ["127.0.0.1.evil.example", [], false],
    ["localhost.evil.example", [], false],
    ["modex.example.com:8443", ["modex.example.com"], true],
    ["modex.example.com", ["modex.example.com:443"], true],
    ["other.example.com", ["modex.example.com"], false],
    ["anything.example", ["*"], true],
    ["", [], false],
    [null, ["*"], false],
  ] as const)("Host %j with MODEX_ALLOWED_HOSTS %j → allowed: %s", (host, allowed, expected) => {
    expect(isAllowedHost(host, allowed)).toBe(expected);
  });
});

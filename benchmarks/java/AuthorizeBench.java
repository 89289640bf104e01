import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;

/**
 * Kafka's own StandardAuthorizer on one authorizer workload of aclog's benchmarks
 * (benchmarks/bench_java.py writes it): the same ACLs, the same requests.
 *
 * Usage: AuthorizeBench INPUT DECISIONS MAX_CALLS MAX_SECONDS. INPUT holds tab-separated lines:
 * "allow_everyone\ttrue|false", "acl\ttype\tname\tpattern\tprincipal\thost\top\tpermission",
 * "set\tNAME" (starts a request set) and "req\tprincipal\thost\top\ttype\tname". DECISIONS
 * receives "NAME\tALLOWED|DENIED" per request, in order. Prints "key\tvalue" lines on stdout:
 * first_build_s and build_s (loadSnapshot + completeInitialLoad: the first in this fresh JVM,
 * then again on a new authorizer, classes loaded and code warmer), then per set "NAME.key": cold_p50_ns and cold_n
 * (the first call for each name, after the JIT is warmed on other names), p50_ns (lowest of 5
 * round medians), p99_ns, samples, ops (median of 1,000-call batches).
 * Times are System.nanoTime around each call minus the median cost of an empty timer pair.
 * One thread; the process holds the whole ACL set.
 */
public class AuthorizeBench {
    static final int ROUNDS = 5;

    /** One request, ready to ask: its context and its one-action list are built in advance. */
    record Ask(AuthorizableRequestContext context, List<Action> actions, String name) {}

    public static void main(String[] args) throws Exception {
        Map<Uuid, StandardAcl> acls = new HashMap<>();
        Map<String, List<String[]>> sets = new LinkedHashMap<>();
        List<String[]> requests = null;
        boolean allowEveryone = false;
        long ids = 1;
        try (BufferedReader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.split("\t", -1);
                switch (f[0]) {
                    case "allow_everyone" -> allowEveryone = Boolean.parseBoolean(f[1]);
                    case "acl" -> acls.put(new Uuid(0, ids++), new StandardAcl(
                        ResourceType.fromString(f[1]), f[2], PatternType.fromString(f[3]), f[4],
                        f[5], AclOperation.fromString(f[6]), AclPermissionType.fromString(f[7])));
                    case "set" -> sets.put(f[1], requests = new ArrayList<>());
                    case "req" -> requests.add(Arrays.copyOfRange(f, 1, f.length));
                    default -> throw new IllegalArgumentException("unknown line: " + f[0]);
                }
            }
        }
        int maxCalls = Integer.parseInt(args[2]);
        double maxSeconds = Double.parseDouble(args[3]);
        StandardAuthorizer authorizer = null;
        for (int build = 0; build < 2; build++) {
            long start = System.nanoTime();
            authorizer = new StandardAuthorizer();
            authorizer.configure(Map.of("allow.everyone.if.no.acl.found",
                String.valueOf(allowEveryone), "node.id", "1"));
            authorizer.loadSnapshot(acls);
            authorizer.completeInitialLoad();
            out(build == 0 ? "first_build_s" : "build_s", (System.nanoTime() - start) / 1e9);
        }
        acls = null;
        long overhead = timerOverhead();
        try (BufferedWriter w = Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8)) {
            for (Map.Entry<String, List<String[]>> set : sets.entrySet()) {
                prefix = set.getKey() + ".";
                measureSet(authorizer, set.getValue(), overhead, maxCalls, maxSeconds, w, set.getKey());
            }
        }
    }

    static String prefix = "";

    /** Warm-up, first calls, decisions, warmed latency and throughput for one request set. */
    static void measureSet(StandardAuthorizer authorizer, List<String[]> requests, long overhead,
            int maxCalls, double maxSeconds, BufferedWriter decisions, String name)
            throws Exception {
        List<Ask> asks = new ArrayList<>();
        List<Ask> warm = new ArrayList<>();
        for (String[] r : requests) {
            asks.add(ask(r[0], r[1], r[2], r[3], r[4]));
            warm.add(ask(r[0], r[1], r[2], r[3], r[4] + "~warm"));
        }
        warmUp(authorizer, warm, maxSeconds * 5, maxSeconds * 40);
        cold(authorizer, asks, overhead);
        for (Ask a : asks) {
            decisions.write(name + "\t" + authorizer.authorize(a.context, a.actions).get(0).name());
            decisions.newLine();
        }
        warmed(authorizer, asks, overhead, maxCalls, maxSeconds);
        out("ops", throughput(authorizer, asks, maxSeconds / 2));
    }

    static Ask ask(String principal, String host, String op, String type, String name)
            throws Exception {
        int colon = principal.indexOf(':');
        KafkaPrincipal who = new KafkaPrincipal(principal.substring(0, colon),
            principal.substring(colon + 1));
        InetAddress address = InetAddress.getByName(host);  // IP literals only: no lookup
        AuthorizableRequestContext context = new AuthorizableRequestContext() {
            public String listenerName() { return "SASL_PLAINTEXT"; }
            public SecurityProtocol securityProtocol() { return SecurityProtocol.SASL_PLAINTEXT; }
            public KafkaPrincipal principal() { return who; }
            public InetAddress clientAddress() { return address; }
            public int requestType() { return 3; }
            public int requestVersion() { return 12; }
            public String clientId() { return "bench"; }
            public int correlationId() { return 1; }
        };
        Action action = new Action(AclOperation.fromString(op),
            new ResourcePattern(ResourceType.fromString(type), name, PatternType.LITERAL), 1,
            false, false);
        return new Ask(context, List.of(action), name);
    }

    static long timerOverhead() {
        long[] samples = new long[20_000];
        for (int i = 0; i < samples.length; i++) {
            long t = System.nanoTime();
            samples[i] = System.nanoTime() - t;
        }
        Arrays.sort(samples);
        return samples[samples.length / 2];
    }

    /** Runs the JIT's compilers on requests whose names none of the measured requests use, in
     *  batches of up to 1,000 calls, until the rate stops improving: at least MIN seconds and
     *  200,000 calls, then 10 batches in a row without 3 % over the best; at most MAX seconds
     *  (on a shared machine the compiler threads wait for a core: 20,000 calls in 1.2 s left
     *  the W2 1k cell at 8x its warmed p50). */
    static void warmUp(StandardAuthorizer authorizer, List<Ask> warm, double min, double max) {
        long start = System.nanoTime();
        double best = 0;
        int sinceBest = 0;
        long calls = 0;
        double elapsed = 0;
        while (elapsed < max && (elapsed < min || calls < 200_000 || sinceBest < 10)) {
            long t = System.nanoTime();
            int n = 0;
            while (n < 1000 && (n == 0 || System.nanoTime() - t < 200_000_000L)) {
                Ask a = warm.get((int) (calls++ % warm.size()));
                authorizer.authorize(a.context, a.actions);
                n++;
            }
            double rate = n * 1e9 / Math.max(1, System.nanoTime() - t);
            sinceBest = rate > best * 1.03 ? 0 : sinceBest + 1;
            best = Math.max(best, rate);
            elapsed = (System.nanoTime() - start) / 1e9;
        }
        out("warm_calls", calls);
        out("warm_s", elapsed);
    }

    /** The first call for each distinct name, in request order: nothing about it is cached. */
    static void cold(StandardAuthorizer authorizer, List<Ask> asks, long overhead) {
        Set<String> seen = new HashSet<>();
        List<Long> samples = new ArrayList<>();
        for (Ask a : asks) {
            if (!seen.add(a.name)) continue;
            long t = System.nanoTime();
            authorizer.authorize(a.context, a.actions);
            samples.add(Math.max(0, System.nanoTime() - t - overhead));
        }
        samples.sort(null);
        out("cold_n", samples.size());
        out("cold_p50_ns", samples.get(samples.size() / 2));
    }

    static void warmed(StandardAuthorizer authorizer, List<Ask> asks, long overhead, int maxCalls,
            double maxSeconds) {
        int perRound = Math.max(1, maxCalls / ROUNDS);
        List<Long> pooled = new ArrayList<>();
        long best = Long.MAX_VALUE;
        int next = 0;
        for (int round = 0; round < ROUNDS; round++) {
            long deadline = System.nanoTime() + (long) (maxSeconds / ROUNDS * 1e9);
            long[] samples = new long[perRound];
            int n = 0;
            while (n < perRound) {
                Ask a = asks.get(next++ % asks.size());
                long t = System.nanoTime();
                authorizer.authorize(a.context, a.actions);
                long end = System.nanoTime();
                samples[n++] = Math.max(0, end - t - overhead);
                if (end > deadline && n >= 2) break;
            }
            long[] taken = Arrays.copyOf(samples, n);
            Arrays.sort(taken);
            best = Math.min(best, taken[n / 2]);
            for (long s : taken) pooled.add(s);
        }
        pooled.sort(null);
        out("samples", pooled.size());
        out("p50_ns", best);
        out("p99_ns", pooled.get(Math.min(pooled.size() - 1, (int) (0.99 * pooled.size()))));
    }

    static double throughput(StandardAuthorizer authorizer, List<Ask> asks, double seconds) {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        List<Double> rates = new ArrayList<>();
        int next = 0;
        while (rates.size() < 20) {
            long t = System.nanoTime();
            for (int i = 0; i < 1000; i++) {
                Ask a = asks.get(next++ % asks.size());
                authorizer.authorize(a.context, a.actions);
            }
            rates.add(1000 * 1e9 / Math.max(1, System.nanoTime() - t));
            if (System.nanoTime() > deadline && rates.size() >= 3) break;
        }
        rates.sort(null);
        return rates.get(rates.size() / 2);
    }

    static void out(String key, Object value) {
        System.out.println(prefix + key + "\t" + value);
    }
}

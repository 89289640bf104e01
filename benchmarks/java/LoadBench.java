import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.server.common.ApiMessageAndVersion;

/**
 * Kafka's own metadata classes loading a KRaft metadata directory (the newest .checkpoint and
 * the .log segments after it, written by benchmarks/bench_java_load.py) into a MetadataImage and
 * a StandardAuthorizer, the way a broker starts: record values decoded by MetadataRecordSerde,
 * replayed into one MetadataDelta, applied, and the image's ACLs loaded with loadSnapshot.
 *
 * Usage: LoadBench DIR [TAIL_ROUNDS]. Prints "key\tvalue" lines: ready_s (from the first byte
 * read to a ready authorizer, in this fresh JVM) and ready_cpu_s (the CPU time all the JVM's
 * threads spent meanwhile), snapshot_records, tail_records, acls,
 * scram_users, live_heap_bytes (used heap after full collections with the image and the
 * authorizer alive, minus the same once they are dropped: Kafka's classes and their static
 * state stay loaded, so this is what the image and the authorizer hold), and with TAIL_ROUNDS > 0 tail_s: the best
 * of that many replays of the log after the checkpoint (read, decoded, replayed into one delta
 * over the checkpoint's image, applied). One thread.
 */
public class LoadBench {
    static final MetadataRecordSerde SERDE = MetadataRecordSerde.INSTANCE;

    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        int tailRounds = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        File checkpoint = newest(dir, ".checkpoint");
        long snapshotEnd = checkpoint == null ? 0
            : Long.parseLong(checkpoint.getName().substring(0, 20));
        long start = System.nanoTime();
        long cpu = processCpuNanos();
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        long snapshotRecords = checkpoint == null ? 0 : replayFile(checkpoint, 0, delta);
        long tailRecords = 0;
        for (File segment : sorted(dir, ".log")) {
            tailRecords += replayFile(segment, snapshotEnd, delta);
        }
        MetadataImage image = delta.apply(provenance(snapshotEnd + tailRecords));
        StandardAuthorizer authorizer = newAuthorizer(image);
        out("ready_s", (System.nanoTime() - start) / 1e9);
        out("ready_cpu_s", (processCpuNanos() - cpu) / 1e9);
        out("snapshot_records", snapshotRecords);
        out("tail_records", tailRecords);
        out("acls", authorizer.aclCount());
        out("scram_users", image.scram().mechanisms().values().stream().mapToInt(Map::size).sum());
        if (image.acls().acls().size() != authorizer.aclCount()) throw new AssertionError();
        delta = null;
        long loaded = liveHeap();
        Reference.reachabilityFence(image);  // alive until measured, whatever the JIT proves
        Reference.reachabilityFence(authorizer);
        image = null;
        authorizer = null;
        out("live_heap_bytes", loaded - liveHeap());
        if (tailRounds > 0) replayTail(dir, checkpoint, snapshotEnd, tailRecords, tailRounds);
    }

    /** Decodes every record of FILE's data batches at or above FIRST into DELTA. Returns how
     *  many records it replayed. */
    static long replayFile(File file, long first, MetadataDelta delta) throws Exception {
        long count = 0;
        try (FileRecords records = FileRecords.open(file, false)) {
            for (RecordBatch batch : records.batches()) {
                if (batch.isControlBatch() || batch.lastOffset() < first) continue;
                for (Record record : batch) {
                    ByteBuffer value = record.value();
                    ApiMessageAndVersion message =
                        SERDE.read(new ByteBufferAccessor(value), value.remaining());
                    delta.replay(message.message());
                    count++;
                }
            }
        }
        return count;
    }

    static StandardAuthorizer newAuthorizer(MetadataImage image) {
        StandardAuthorizer authorizer = new StandardAuthorizer();
        authorizer.configure(Map.of("node.id", "1"));
        authorizer.loadSnapshot(image.acls().acls());
        authorizer.completeInitialLoad();
        return authorizer;
    }

    /** The log after the checkpoint read, decoded, replayed into one delta over the
     *  checkpoint's image and applied (what a broker's loader does when it catches up), best
     *  of ROUNDS; the image only, as aclog's replay_tail. */
    static void replayTail(File dir, File checkpoint, long snapshotEnd, long tailRecords,
            int rounds) throws Exception {
        MetadataDelta base = new MetadataDelta(MetadataImage.EMPTY);
        if (checkpoint != null) replayFile(checkpoint, 0, base);
        MetadataImage snapshot = base.apply(provenance(snapshotEnd));
        double best = Double.MAX_VALUE;
        for (int round = 0; round < rounds; round++) {
            long start = System.nanoTime();
            MetadataDelta delta = new MetadataDelta(snapshot);
            for (File segment : sorted(dir, ".log")) replayFile(segment, snapshotEnd, delta);
            MetadataImage image = delta.apply(provenance(snapshotEnd + tailRecords));
            best = Math.min(best, (System.nanoTime() - start) / 1e9);
            if (image.acls().acls().isEmpty() && tailRecords > 0) throw new AssertionError();
        }
        out("tail_s", best);
    }

    static MetadataProvenance provenance(long nextOffset) {
        return new MetadataProvenance(nextOffset - 1, 1, 0, true);
    }

    /** CPU time of the whole JVM (every thread: the main one, the JIT's and the collector's). */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
            ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Used heap after full collections, until it stops shrinking (at most 10). */
    static long liveHeap() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            Thread.sleep(50);
            long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (now >= used) return Math.min(now, used);
            used = now;
        }
        return used;
    }

    static File[] sorted(File dir, String suffix) {
        File[] files = dir.listFiles((d, name) -> name.endsWith(suffix));
        if (files == null) return new File[0];
        Arrays.sort(files);
        return files;
    }

    static File newest(File dir, String suffix) {
        File[] files = sorted(dir, suffix);
        return files.length == 0 ? null : files[files.length - 1];
    }

    static void out(String key, Object value) {
        System.out.println(key + "\t" + value);
    }
}

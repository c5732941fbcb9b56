package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.fabricmanager.southbound.FrameDecoder;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.MessageDecoder;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.SouthboundCodec;
import org.fabricmanager.southbound.TableHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (opt-in, {@code -Dfm.bench=true}): the CPU one full table push costs each end, as LFT_BLOCK frames
 * (agents that predate LFT_BLOCKS) and as LFT_BLOCKS runs. The daemon's side encodes the frames of a 65,536-entry
 * table (1,024 blocks) as {@code AgentSession.sendBatch} does; the agent's side runs them through its pipeline's
 * frame and message decoders into a {@link TableStager} and commits (hash check included). Thread CPU time per
 * table, so that the figures hold on a loaded machine. Run:
 * <pre>
 * mvn -B -q -pl fabric-manager -am verify -DskipITs -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dtest=PushFramesBenchmark -Dfm.bench=true -Dfm.test.redirect=false
 * </pre>
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class PushFramesBenchmark {
    private static final int ENTRIES = 65_536;
    private static final int PORTS = 64;
    private static final int WARMUP = 300;
    private static final int TABLES = 600;

    @Test
    void fullTablePushCostPerFrameKind() {
        Random random = new Random(1);
        byte[] table = new byte[ENTRIES];
        for (int i = 0; i < ENTRIES; i++) {
            table[i] = (byte) (1 + random.nextInt(PORTS));
        }
        List<LftBatch.Block> blocks = new ArrayList<>();
        for (int base = 0; base < ENTRIES; base += 64) {
            blocks.add(new LftBatch.Block(base, Arrays.copyOfRange(table, base, base + 64)));
        }
        LftBatch batch = new LftBatch(1, blocks, ENTRIES, TableHash.of(table));
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        System.out.printf("full push of one %,d-entry table (%,d blocks), thread CPU per table, %d tables after %d warm-up%n",
                ENTRIES, blocks.size(), TABLES, WARMUP);
        System.out.printf("%-12s %8s %10s %14s %14s %14s%n", "frames", "count", "bytes", "encode µs", "agent µs", "both µs");
        for (int runEntries : new int[] {64, Protocol.MAX_RUN_ENTRIES, 64, Protocol.MAX_RUN_ENTRIES}) {
            long[] encode = new long[TABLES];
            long[] agent = new long[TABLES];
            int frames = 0;
            long bytes = 0;
            for (int t = -WARMUP; t < TABLES; t++) {
                long c0 = cpu.getCurrentThreadCpuTime();
                ByteBuf out = PooledByteBufAllocator.DEFAULT.buffer(100_000);
                frames = encode(batch, runEntries, out);
                bytes = out.readableBytes();
                long c1 = cpu.getCurrentThreadCpuTime();
                AppliedTable[] held = new AppliedTable[1];
                TableStager stager = new TableStager(PORTS);
                EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(Protocol.DEFAULT_MAX_FRAME), new MessageDecoder(),
                        new SimpleChannelInboundHandler<Message>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
                                if (msg instanceof Message.LftBlock b) {
                                    stager.stage(b);
                                } else if (msg instanceof Message.LftBlocks r) {
                                    stager.stage(r);
                                } else if (msg instanceof Message.LftCommit c) {
                                    held[0] = stager.commit(AppliedTable.EMPTY, c);
                                }
                            }
                        });
                ch.writeInbound(out);
                long c2 = cpu.getCurrentThreadCpuTime();
                ch.finishAndReleaseAll();
                assertThat(held[0].hash()).isEqualTo(batch.hash());
                if (t >= 0) {
                    encode[t] = c1 - c0;
                    agent[t] = c2 - c1;
                }
            }
            long[] both = new long[TABLES];
            for (int i = 0; i < TABLES; i++) {
                both[i] = encode[i] + agent[i];
            }
            System.out.printf("%-12s %,8d %,10d %14s %14s %14s%n", runEntries > 64 ? "LFT_BLOCKS" : "LFT_BLOCK", frames,
                    bytes, spread(encode), spread(agent), spread(both));
        }
    }

    /** The frames of {@code batch} as AgentSession.sendBatch writes them; the number of frames. */
    private static int encode(LftBatch batch, int runEntries, ByteBuf out) {
        int frames = 0;
        int txid = 0;
        for (int from = 0; from < batch.blocks().size(); frames++) {
            txid = Protocol.nextTxid(txid);
            if (runEntries > 64) {
                int to = batch.runEnd(from, runEntries);
                SouthboundCodec.encodeRun(txid, batch, from, to, out);
                from = to;
            } else {
                LftBatch.Block b = batch.blocks().get(from);
                SouthboundCodec.encode(new Message.LftBlock(txid, batch.version(), b.base(), b.entries()), out);
                from++;
            }
        }
        SouthboundCodec.encode(new Message.LftCommit(Protocol.nextTxid(txid), batch.version(), batch.length(),
                batch.blocks().size(), batch.hash()), out);
        return frames + 1;
    }

    /** Median (p10-p90) in microseconds. */
    private static String spread(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return String.format("%.0f (%.0f-%.0f)", s[s.length / 2] / 1e3, s[s.length / 10] / 1e3, s[s.length * 9 / 10] / 1e3);
    }
}

-- AlterTable
ALTER TABLE "TicketType" ADD COLUMN     "seriesKey" INTEGER;

-- CreateIndex
CREATE INDEX "TicketType_seriesKey_idx" ON "TicketType"("seriesKey");

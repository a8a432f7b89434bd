-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "typicalAgeRange" TEXT NOT NULL DEFAULT '';
